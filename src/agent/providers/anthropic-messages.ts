// The unified request → Anthropic Messages API parameters. Thinking blocks (with their signature)
// and redacted thinking go back verbatim, as the API requires for tool-use turns; thinking is asked for
// in the form each model accepts (anthropic-models.ts).
import type Anthropic from '@anthropic-ai/sdk';
import type { ContentPart, Message, ModelRequest } from '../types.ts';
import { claudeThinkingOf } from './anthropic-models.ts';

type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type MessageParam = Anthropic.Messages.MessageParam;
type ImageMediaType = Anthropic.Messages.Base64ImageSource['media_type'];
/** The beta union also has `display: 'updates'`, which the GA types do not list yet. */
type ThinkingParam = Anthropic.Beta.Messages.BetaThinkingConfigParam;

/** The beta under which adaptive thinking returns only the notes written between tool calls (`display: 'updates'`). */
export const THINKING_UPDATES_BETA = 'thinking-display-updates-2026-08-18';

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
      return {
        type: 'image',
        source: { type: 'base64', media_type: part.mediaType as ImageMediaType, data: part.data },
      };
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

/**
 * Notes the model wrote in thinking blocks reach the user as text just before their block (anthropic.ts), so the
 * history holds each note twice. The API must get the turn back as it sent it: the text copy (and the blank line
 * put before it) is dropped.
 */
function withoutNoteCopies(content: ContentPart[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const part of content) {
    const prev = out[out.length - 1];
    if (
      part.type === 'thinking' &&
      part.signature &&
      part.text &&
      prev?.type === 'text' &&
      prev.text.endsWith(part.text)
    ) {
      const rest = prev.text.slice(0, -part.text.length).replace(/\n\n$/, '');
      if (rest) out[out.length - 1] = { type: 'text', text: rest };
      else out.pop();
    }
    out.push(part);
  }
  return out;
}

/** One unified message as an Anthropic message; tool results lead a user turn, as the API requires. */
export function toAnthropicMessage(message: Message): MessageParam {
  const content = message.role === 'assistant' ? withoutNoteCopies(message.content) : message.content;
  const blocks = content.map((p) => toBlock(p, message.role)).filter((b): b is ContentBlockParam => b !== undefined);
  if (message.role === 'user') {
    const results = blocks.filter((b) => b.type === 'tool_result');
    const rest = blocks.filter((b) => b.type !== 'tool_result');
    return { role: 'user', content: [...results, ...rest] };
  }
  return { role: 'assistant', content: blocks };
}

/**
 * The `thinking` setting for `request` in the form its model accepts: a budget on models that take one, adaptive
 * thinking on the others. Models that put their between-tool notes in thinking blocks get them back as text:
 * Sonnet 5.5 with thinking off through `between_tools`, adaptive thinking through `display: 'updates'`.
 */
function thinkingFor(request: ModelRequest): ThinkingParam | undefined {
  const model = claudeThinkingOf(request.model);
  const budget = request.thinkingBudgetTokens;
  if (model.mode === 'budget') return budget === undefined ? undefined : { type: 'enabled', budget_tokens: budget };
  if (budget === undefined && model.off) return { type: model.off };
  if (model.notesInThinking) return { type: 'adaptive', display: 'updates' };
  return budget === undefined ? undefined : { type: 'adaptive' };
}

/**
 * For a built request: the `anthropic-beta` values it needs, and whether the thinking text it gets back is the model's
 * notes for the user.
 */
export function anthropicRequestExtras(params: Anthropic.Messages.MessageCreateParams): {
  betas: string[];
  notesForUser: boolean;
} {
  const thinking = params.thinking as ThinkingParam | undefined;
  const updates = thinking?.type === 'adaptive' && thinking.display === 'updates';
  return { betas: updates ? [THINKING_UPDATES_BETA] : [], notesForUser: updates || thinking?.type === 'between_tools' };
}

/**
 * The streaming Messages request for `request`. With `promptCaching` (default) the request carries a top-level
 * cache marker, so each turn of a tool loop reads the previous turns from the cache instead of paying for them again.
 */
export function toAnthropicParams(
  request: ModelRequest,
  promptCaching = true,
): Anthropic.Messages.MessageCreateParamsStreaming {
  const budget = request.thinkingBudgetTokens;
  let maxTokens = request.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  // max_tokens must exceed a thinking budget; adaptive thinking also spends max_tokens, so it gets the same room.
  if (budget !== undefined && maxTokens <= budget) maxTokens = budget + maxTokens;
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
  const thinking = thinkingFor(request);
  if (thinking) params.thinking = thinking as Anthropic.Messages.ThinkingConfigParam;
  // `temperature`, `top_p` and `top_k` are never sent: the installed SDK's Messages params have no such fields,
  // and Claude 4.7 and later models answer non-default values with a 400.
  return params;
}
