// What the real Messages API does per Claude model, as far as the tests need it: the `thinking` settings and
// sampling values it answers with a 400, the beta header `display: "updates"` needs, and whether thinking text
// comes back at all (newer models send thinking blocks empty unless asked). Model names not listed pass as before.
import type { IncomingHttpHeaders } from 'node:http';

interface ClaudeRules {
  /** `thinking.type` values accepted. */
  thinking: readonly string[];
  /** Non-default `temperature`, `top_p` or `top_k` is a 400. */
  defaultSamplingOnly: boolean;
  /** Thinking text is empty unless `between_tools` or a `display` that returns it was asked for. */
  thinkingEmptyByDefault: boolean;
}

const EXTENDED_THINKING: ClaudeRules = {
  thinking: ['enabled', 'disabled'],
  defaultSamplingOnly: false,
  thinkingEmptyByDefault: false,
};

// From Anthropic's Sonnet 5.5 migration guide and thinking guide.
const RULES: Readonly<Record<string, ClaudeRules>> = {
  'claude-sonnet-5-5': {
    thinking: ['adaptive', 'between_tools'],
    defaultSamplingOnly: true,
    thinkingEmptyByDefault: true,
  },
  'claude-sonnet-4-5': EXTENDED_THINKING,
  'claude-haiku-4-5': EXTENDED_THINKING,
};

const UPDATES_BETA = 'thinking-display-updates-2026-08-18';

interface Body {
  model?: string;
  thinking?: { type?: string; display?: string; [k: string]: unknown };
  temperature?: number;
  top_p?: number;
  top_k?: number;
}

const rulesOf = (body: Body | undefined) => RULES[String(body?.model ?? '').replace(/-\d{8}$/, '')];

/** The message of the 400 the API would answer `body` with, or undefined when it would be accepted. */
export function anthropicRefusal(body: Body | undefined, headers: IncomingHttpHeaders): string | undefined {
  const rules = rulesOf(body);
  const thinking = body?.thinking;
  if (
    thinking?.display === 'updates' &&
    !String(headers['anthropic-beta'] ?? '')
      .split(',')
      .includes(UPDATES_BETA)
  ) {
    return `thinking.display: "updates" needs the anthropic-beta header ${UPDATES_BETA}`;
  }
  if (!rules) return undefined;
  if (thinking?.type && !rules.thinking.includes(thinking.type)) {
    if (thinking.type === 'enabled') {
      return (
        '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and ' +
        '"output_config.effort" to control thinking behavior.'
      );
    }
    if (thinking.type === 'disabled' && rules.thinking.includes('between_tools')) {
      return (
        'To turn thinking off on this model, send "thinking": {"type": "between_tools"} instead of {"type": ' +
        '"disabled"}.'
      );
    }
    return `thinking.type "${thinking.type}" is not supported for this model.`;
  }
  if (thinking?.type === 'between_tools' && Object.keys(thinking).length > 1)
    return 'thinking: "between_tools" takes no other field.';
  const sampled =
    (body?.temperature !== undefined && body.temperature !== 1) ||
    body?.top_p !== undefined ||
    body?.top_k !== undefined;
  if (rules.defaultSamplingOnly && sampled)
    return 'temperature, top_p and top_k cannot be changed from their defaults for this model.';
  return undefined;
}

/** Whether the API would fill in the text of the thinking blocks it sends for `body`. */
export function anthropicShowsThinking(body: Body | undefined): boolean {
  if (!rulesOf(body)?.thinkingEmptyByDefault) return true;
  const thinking = body?.thinking;
  return thinking?.type === 'between_tools' || thinking?.display === 'updates' || thinking?.display === 'summarized';
}
