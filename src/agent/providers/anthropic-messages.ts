// The unified request → Anthropic Messages API parameters. Thinking blocks (with their signature)
// and redacted thinking go back verbatim, as the API requires for tool-use turns.
import type Anthropic from '@anthropic-ai/sdk';
import type { ContentPart, Message, ModelRequest } from '../types.ts';

type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type MessageParam = Anthropic.Messages.MessageParam;
type ImageMediaType = Anthropic.Messages.Base64ImageSource['media_type'];

/** Output tokens asked for when the request does not say (the API requires a value). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

const IMAGE_TYPES = new Set<string>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function toBlock(part: ContentPart, role: Message['role']): ContentBlockParam | undefined {
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : { type: 'text', text: part.text }; // the API rejects empty text blocks
    case 'image':
      if (!IMAGE_TYPES.has(part.mediaType)) {
        return { type: 'text', text: `[image of type ${part.mediaType} omitted: unsupported by this model]` };
      }
      return { type: 'image', source: { type: 'base64', media_type: part.mediaType as ImageMediaType, data: part.data } };
    case 'tool-call':
      return { type: 'tool_use', id: part.id, name: part.name, input: part.input ?? {} };
    case 'tool-result':
      return { type: 'tool_result', tool_use_id: part.id, content: part.content, is_error: part.isError };
    case 'thinking':
      if (role !== 'assistant') return undefined;
      if (part.redacted) return { type: 'redacted_thinking', data: part.text };
      // Thinking without a signature came from another provider; Anthropic would reject it.
      return part.signature ? { type: 'thinking', thinking: part.text, signature: part.signature } : undefined;
  }
}

/** One unified message as an Anthropic message; tool results lead a user turn, as the API requires. */
export function toAnthropicMessage(message: Message): MessageParam {
  const blocks = message.content.map((p) => toBlock(p, message.role)).filter((b): b is ContentBlockParam => b !== undefined);
  if (message.role === 'user') {
    const results = blocks.filter((b) => b.type === 'tool_result');
    const rest = blocks.filter((b) => b.type !== 'tool_result');
    return { role: 'user', content: [...results, ...rest] };
  }
  return { role: 'assistant', content: blocks };
}

/**
 * The streaming Messages request for `request`. With `promptCaching` (default) the request carries a top-level
 * cache marker, so each turn of a tool loop reads the previous turns from the cache instead of paying for them again.
 */
export function toAnthropicParams(request: ModelRequest, promptCaching = true): Anthropic.Messages.MessageCreateParamsStreaming {
  const budget = request.thinkingBudgetTokens;
  let maxTokens = request.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  if (budget !== undefined && maxTokens <= budget) maxTokens = budget + maxTokens; // max_tokens must exceed the thinking budget
  const params: Anthropic.Messages.MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: maxTokens,
    messages: request.messages.map(toAnthropicMessage),
    stream: true,
  };
  if (promptCaching) params.cache_control = { type: 'ephemeral' };
  if (request.system) params.system = request.system;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: { type: 'object', ...t.inputSchema } as Anthropic.Messages.Tool.InputSchema,
    }));
  }
  if (budget !== undefined) params.thinking = { type: 'enabled', budget_tokens: budget };
  // `temperature` is not sent: this API version has no such parameter.
  return params;
}
