// The unified request → Cohere Chat v2 body (`POST /v2/chat`): system and user messages, assistant turns with
// `tool_calls` (their text as the `tool_plan`), `tool` messages for results, images as data URLs; thinking dropped.
import type { Message, ModelRequest } from '../types.ts';

type UserPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

type CohereMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | UserPart[] }
  | {
      role: 'assistant';
      content?: string;
      tool_plan?: string;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** One unified message as Cohere messages. */
export function toCohereMessages(message: Message): CohereMessage[] {
  if (message.role === 'assistant') {
    const text = message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    const calls = message.content.flatMap((p) =>
      p.type === 'tool-call'
        ? [
            {
              id: p.id,
              type: 'function' as const,
              function: { name: p.name, arguments: JSON.stringify(p.input ?? {}) },
            },
          ]
        : [],
    );
    if (calls.length === 0) return [{ role: 'assistant', content: text }];
    return [{ role: 'assistant', ...(text ? { tool_plan: text } : {}), tool_calls: calls }];
  }
  const out: CohereMessage[] = [];
  for (const p of message.content) {
    if (p.type === 'tool-result') {
      out.push({ role: 'tool', tool_call_id: p.id, content: p.isError ? `Error: ${p.content}` : p.content });
    }
  }
  const parts: UserPart[] = [];
  for (const p of message.content) {
    if (p.type === 'text') parts.push({ type: 'text', text: p.text });
    else if (p.type === 'image')
      parts.push({ type: 'image_url', image_url: { url: `data:${p.mediaType};base64,${p.data}` } });
  }
  if (parts.length > 0) {
    const onlyText = parts.every((p) => p.type === 'text');
    out.push({ role: 'user', content: onlyText ? parts.map((p) => (p as { text: string }).text).join('\n') : parts });
  }
  return out;
}

/** The streaming Chat v2 body for `request`. */
export function toCohereBody(request: ModelRequest): Record<string, unknown> {
  const messages: CohereMessage[] = [];
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const m of request.messages) messages.push(...toCohereMessages(m));
  return {
    model: request.model,
    messages,
    stream: true,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((t) => ({
            type: 'function',
            function: { name: t.name, description: t.description, parameters: { type: 'object', ...t.inputSchema } },
          })),
        }
      : {}),
    ...(request.maxOutputTokens !== undefined ? { max_tokens: request.maxOutputTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  };
}
