// A job's prompt turned into the agent's input. The target conversation's recent history is
// available to a job in two ways: `{{history}}` anywhere in the prompt is replaced by a
// transcript, and a prompt `/<skill> [text]` runs that skill with its `history` argument filled
// from the transcript and `text` as its other argument (`/daily-digest the last day`).
import type { Message, Skill, SkillArg } from '../agent/index.ts';
import { expandSkill } from '../agent/skills/expand.ts';

/** Messages and characters of history a transcript keeps (the newest). */
export const TRANSCRIPT_LIMITS = { messages: 200, chars: 40_000 } as const;

const BOT_NAME = 'boxbot';

/** The text parts of one message, with group speakers (`[ada]: hi`) kept as `ada: hi`. */
function lineOf(m: Message): string | undefined {
  const text = m.content
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('\n')
    .trim();
  if (!text) return undefined;
  if (m.role === 'assistant') return `${BOT_NAME}: ${text}`;
  const speaker = /^\[([^\]\n]{1,80})\]: ([\s\S]*)$/.exec(text);
  return speaker ? `${speaker[1]}: ${speaker[2]}` : `user: ${text}`;
}

/**
 * The conversation's recent messages, one per line as `user: text` (continuation lines
 * indented), oldest first; tool calls and results are left out. The store keeps no per-message
 * times, so "recent" means the newest `limits.messages` messages within `limits.chars`.
 */
export function transcriptOf(
  messages: Message[],
  limits: { messages: number; chars: number } = TRANSCRIPT_LIMITS,
): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = messages.length - 1; i >= 0 && lines.length < limits.messages; i--) {
    const line = lineOf(messages[i]!)?.replace(/\n/g, '\n  ');
    if (line === undefined) continue;
    if (size + line.length + 1 > limits.chars) break;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.reverse().join('\n');
}

/** Looks skills up by name. */
export interface SkillLookup {
  get(name: string): Skill | undefined;
}

/** The default an argument's description states (`...; default the last day`), if any. */
function defaultOf(arg: SkillArg): string | undefined {
  return /\bdefault:?\s+([^;]+?)\.?$/i.exec(arg.description)?.[1]?.trim();
}

/**
 * The agent's input for a job prompt, or an error naming what is missing. `withHistory`: the
 * input holds the transcript (people's words, which the run cannot trust: approvals.afterUntrusted).
 */
export function jobInput(
  prompt: string,
  transcript: string,
  skills: SkillLookup | undefined,
  /** `period`: the period the history covers (a digest's), for a skill's `period` argument. */
  opts: { period?: string } = {},
): { ok: true; input: string; withHistory: boolean } | { ok: false; error: string } {
  const history = transcript || '(no messages)';
  const slash = /^\/([a-z0-9][a-z0-9-]{0,63})(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  const skill = slash ? skills?.get(slash[1]!) : undefined;
  if (!slash || !skill) {
    const input = prompt.replace(/\{\{\s*history\s*\}\}/g, history);
    return { ok: true, input, withHistory: !!transcript && input !== prompt };
  }
  const rest = slash[2]?.trim() ?? '';
  const args: Record<string, string> = {};
  if (skill.args.some((a) => a.name === 'history')) args.history = history;
  const others = skill.args.filter((a) => a.name !== 'history');
  if (rest && others.length === 1) args[others[0]!.name] = rest;
  if (opts.period && skill.args.some((a) => a.name === 'period')) args.period = opts.period;
  // An optional argument left out takes the default its description names ("...; default the last day").
  for (const a of others) {
    const fallback = defaultOf(a);
    if (args[a.name] === undefined && fallback) args[a.name] = fallback;
  }
  const r = expandSkill(skill, { ...(rest ? { arguments: rest } : {}), args });
  return r.ok
    ? { ok: true, input: r.text, withHistory: !!transcript && args.history !== undefined }
    : { ok: false, error: r.error };
}
