// The unified request → Cohere Chat v2 body (`POST /v2/chat`): system and user messages, assistant turns with
// `tool_calls` (their text as the `tool_plan`), `tool` messages for results, images as data URLs; thinking dropped.
import type { Message, ModelRequest } from '../types.ts';
import { type UserSideMessage, userSideMessages } from './openai-messages.ts';

// User turns and tool results are shaped as in Chat Completions (userSideMessages).
type CohereMessage =
  | { role: 'system'; content: string }
  | UserSideMessage
  | {
      role: 'assistant';
      content?: string;
      tool_plan?: string;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    };

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
  return userSideMessages(message);
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
