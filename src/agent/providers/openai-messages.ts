// The unified request → OpenAI Chat Completions parameters (also spoken by the OpenAI-compatible
// presets). Tool results become `tool` messages right after the assistant turn; thinking is dropped.
import type OpenAI from 'openai';
import type { Message, ModelRequest } from '../types.ts';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** One unified message as one or more Chat Completions messages. */
export function toOpenAIMessages(message: Message): ChatMessage[] {
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
    return [
      {
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      },
    ];
  }
  return userSideMessages(message);
}

/** The parts of a user message in the Chat Completions shape (Cohere v2 takes the same). */
type SharedUserPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** A user or tool-result turn in the Chat Completions shape that Cohere's Chat v2 shares. */
export type UserSideMessage =
  | { role: 'tool'; tool_call_id: string; content: string }
  | { role: 'user'; content: string | SharedUserPart[] };

/**
 * A unified user message as Chat Completions messages: each tool result as a `tool` message (an
 * error marked `Error:`), then its text and images as one `user` message (plain text when text only).
 */
export function userSideMessages(message: Message): UserSideMessage[] {
  const out: UserSideMessage[] = [];
  for (const p of message.content) {
    if (p.type === 'tool-result') {
      out.push({ role: 'tool', tool_call_id: p.id, content: p.isError ? `Error: ${p.content}` : p.content });
    }
  }
  const parts: SharedUserPart[] = [];
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

/**
 * Which output-limit parameter a server understands: OpenAI's current one, or the older one compatible servers take.
 */
export type MaxTokensParam = 'max_completion_tokens' | 'max_tokens';

/** The streaming Chat Completions request for `request`, asking for usage in the last chunk. */
export function toOpenAIParams(
  request: ModelRequest,
  maxTokensParam: MaxTokensParam = 'max_completion_tokens',
): OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming {
  const messages: ChatMessage[] = [];
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const m of request.messages) messages.push(...toOpenAIMessages(m));
  const params: OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
  }
  if (request.maxOutputTokens !== undefined) params[maxTokensParam] = request.maxOutputTokens;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  return params;
}
