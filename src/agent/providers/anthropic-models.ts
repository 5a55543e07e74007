// What each Claude model accepts for thinking, so the request builder never sends a setting the model
// answers with a 400, and knows when the notes the model writes between tool calls arrive in thinking blocks.
import { baseModelName } from './pricing.ts';

/** How one model takes thinking. */
export interface ClaudeThinking {
  /**
   * Thinking when asked for: a token budget (`type: 'enabled'`) or `adaptive` (Claude 4.6 and later reject or deprecate
   * budgets).
   */
  mode: 'budget' | 'adaptive';
  /**
   * The `thinking.type` that turns up-front thinking off; absent: no `thinking` field is sent (the model's default).
   */
  off?: 'between_tools';
  /**
   * Text written between tool calls comes back in thinking blocks, empty unless asked for (`between_tools`, or
   * `display: 'updates'`).
   */
  notesInThinking?: boolean;
}

const BUDGET: ClaudeThinking = { mode: 'budget' };
const ADAPTIVE: ClaudeThinking = { mode: 'adaptive' };
const ADAPTIVE_WITH_NOTES: ClaudeThinking = { mode: 'adaptive', notesInThinking: true };

// From Anthropic's model pages and thinking guide, checked 2026-11-22. Sonnet 5.5 alone accepts
// `between_tools` and rejects `disabled`; Opus 5.5 and the Fable/Mythos models always think.
const MODELS: Readonly<Record<string, ClaudeThinking>> = Object.freeze({
  'claude-sonnet-5-5': { mode: 'adaptive', off: 'between_tools', notesInThinking: true },
  'claude-opus-5-5': ADAPTIVE_WITH_NOTES,
  'claude-fable-5-1': ADAPTIVE_WITH_NOTES,
  'claude-mythos-5-1': ADAPTIVE_WITH_NOTES,
  'claude-fable-5': ADAPTIVE_WITH_NOTES,
  'claude-haiku-5-5': ADAPTIVE,
  'claude-mythos-5': ADAPTIVE,
  'claude-opus-5': ADAPTIVE,
  'claude-sonnet-5': ADAPTIVE,
  'claude-opus-4-8': ADAPTIVE,
  'claude-opus-4-7': ADAPTIVE,
  'claude-mythos-preview': ADAPTIVE,
  'claude-opus-4-6': ADAPTIVE,
  'claude-sonnet-4-6': ADAPTIVE,
  'claude-opus-4-5': BUDGET,
  'claude-sonnet-4-5': BUDGET,
  'claude-haiku-4-5': BUDGET,
  'claude-opus-4-1': BUDGET,
  'claude-opus-4': BUDGET,
  'claude-sonnet-4': BUDGET,
  'claude-3-7-sonnet': BUDGET,
  'claude-3-5-haiku': BUDGET,
  'claude-3-haiku': BUDGET,
});

/**
 * How `model` (the API's own id, snapshots and `-latest` included) takes thinking. A Claude model newer than
 * this table thinks adaptively, as every model since 4.6 does; any other name (an Anthropic-compatible server)
 * keeps the original request shape.
 */
export function claudeThinkingOf(model: string): ClaudeThinking {
  return MODELS[model] ?? MODELS[baseModelName(model)] ?? (model.startsWith('claude-') ? ADAPTIVE : BUDGET);
}
