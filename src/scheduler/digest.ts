// A digest job's history (README, "The digest job"): a job whose target is a recorded channel and
// whose prompt is `/daily-digest …` or holds `{{history}}` reads that channel's log for the period
// since its last successful run (first run: the period its prompt names, else 24 hours), threads
// under their first message, oldest first, times in the job's time zone. What the worker then does
// with a history too long for the model is digest-map.ts.
import { decodeConversationKey, spaceKeyOf } from '../adapters/conversation-key.ts';
import { historyPolicy } from '../config/history.ts';
import type { Config } from '../config/schema.ts';
import { resolvePolicy } from '../runner/policy.ts';
import type { ChannelLogEntry, JobLogEntry, JobRecord } from '../store/index.ts';

/** A channel's history as the worker gets it: rendered blocks (a message, or a thread whole). */
export interface ChannelHistory {
  /** Each a message or a whole thread, oldest first; a block is never split across chunks. */
  blocks: string[];
  messages: number;
  /** The period in words (`since Mon 24 Nov 09:00`, `the last week`), for the skill's `period`. */
  period: string;
}

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const UNITS: Record<string, number> = { hour: HOUR, day: DAY, week: 7 * DAY, month: 30 * DAY };
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7 };

/** True when the job reads a channel's history: `/daily-digest` or `{{history}}` in its prompt. */
export function readsHistory(prompt: string): boolean {
  return /^\s*\/daily-digest\b/.test(prompt) || /\{\{\s*history\s*\}\}/.test(prompt);
}

/**
 * The period a prompt names (`/daily-digest the last week`, `… the past 3 days`, `… last 12 hours`),
 * in ms; undefined when it names none.
 */
export function periodOf(prompt: string): number | undefined {
  const m =
    /\b(?:the\s+)?(?:last|past)\s+(?:(\d+|a|an|one|two|three|four|five|six|seven)\s+)?(hour|day|week|month)s?\b/i.exec(
      prompt,
    );
  if (!m) return undefined;
  const n = m[1] === undefined ? 1 : (NUMBERS[m[1].toLowerCase()] ?? Number(m[1]));
  return n * UNITS[m[2]!.toLowerCase()]!;
}

/** The start of the period a run reads: the last successful run's start, else the named period or 24 h. */
export function periodStart(prompt: string, logs: JobLogEntry[], now: Date): { from: Date; named: boolean } {
  const ok = logs.filter((l) => l.outcome === 'final' && !l.error).at(-1);
  if (ok) return { from: new Date(ok.startedAt), named: false };
  const named = periodOf(prompt);
  return { from: new Date(now.getTime() - (named ?? DAY)), named: named !== undefined };
}

/**
 * Whether a job may read its target channel's log: jobs an admin made (no creator) may; a job
 * made from chat only when its creator is on the channel's platform and its policy lets them in.
 */
export function mayReadChannel(config: Config, job: Pick<JobRecord, 'createdBy' | 'target'>): boolean {
  if (!job.createdBy) return true;
  const ref = decodeConversationKey(job.target);
  const at = job.createdBy.indexOf(':');
  if (job.createdBy.slice(0, at) !== ref.platform) return false;
  const userId = job.createdBy
    .slice(at + 1)
    .split(':')
    .at(-1)!; // Slack user keys carry the team
  const policy = resolvePolicy(config, { platform: ref.platform, chatId: ref.chatId, userId });
  const allow = policy.allowFrom;
  return !allow || allow.includes('*') || allow.includes(userId) || allow.includes(ref.chatId);
}

/** The recorded channel a job's target is in, or undefined when it is not recorded. */
export function recordedChannelOf(config: Config, target: string): string | undefined {
  try {
    const ref = decodeConversationKey(target);
    if (ref.platform !== 'slack' && ref.platform !== 'discord' && ref.platform !== 'telegram') return undefined;
    return historyPolicy(config, ref.platform, ref.chatId).record ? spaceKeyOf(target) : undefined;
  } catch {
    return undefined;
  }
}

/** `Mon 24 Nov 09:05` in `timeZone` (the machine's when absent). */
function when(at: string, timeZone: string | undefined): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    ...(timeZone ? { timeZone } : {}),
  }).formatToParts(new Date(at));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('weekday')} ${get('day')} ${get('month')} ${get('hour')}:${get('minute')}`;
}

function line(e: ChannelLogEntry, timeZone: string | undefined): string {
  const who = e.bot ? `${e.userName} (bot)` : e.userName;
  const files = e.files?.length ? ` [files: ${e.files.join(', ')}]` : '';
  const edited = e.editedAt ? ' (edited)' : '';
  return `[${when(e.at, timeZone)}] ${who}: ${e.text.replace(/\n/g, '\n    ')}${files}${edited}`;
}

/**
 * The log rendered for the model: each top-level message a block, a thread's replies indented
 * under the message that started it (or under a note when that message is older than the period).
 */
export function renderHistory(
  entries: ChannelLogEntry[],
  timeZone: string | undefined,
  thread: (id: string) => string = () => 'a thread started before this period',
): string[] {
  const replies = new Map<string, ChannelLogEntry[]>();
  for (const e of entries) if (e.threadId) replies.set(e.threadId, [...(replies.get(e.threadId) ?? []), e]);
  const ids = new Set(entries.map((e) => e.messageId));
  const blocks: string[] = [];
  const shown = new Set<string>();
  const under = (id: string) => (replies.get(id) ?? []).map((r) => `  ↳ ${line(r, timeZone)}`);
  for (const e of entries) {
    if (!e.threadId) {
      blocks.push([line(e, timeZone), ...under(e.messageId)].join('\n'));
      shown.add(e.messageId);
    } else if (!ids.has(e.threadId) && !shown.has(e.threadId)) {
      // Replies in a thread whose first message is outside the period (or a Discord thread's channel).
      blocks.push([`(${thread(e.threadId)})`, ...under(e.threadId)].join('\n'));
      shown.add(e.threadId);
    }
  }
  return blocks;
}

/** The period in words for the digest's heading. */
export function periodWords(from: Date, named: boolean, prompt: string, timeZone: string | undefined): string {
  if (named) return /\b(?:the\s+)?(?:last|past)\s+[^,.;\n]*/i.exec(prompt)?.[0]?.trim() ?? 'the last day';
  return `since ${when(from.toISOString(), timeZone)}`;
}

/** What the worker gets for a digest: the history, or why the job may not read it. */
export type DigestInput = ChannelHistory | { refused: string };

/**
 * The history a run of `job` reads from its target channel's log, or undefined when the job
 * reads none (its prompt asks for no history, or the channel is not recorded: then the target
 * conversation's own transcript serves, as before).
 */
export async function digestInputOf(
  o: {
    config: Config;
    channelLog: {
      list(channel: string, range: { from: string; to: string }): Promise<ChannelLogEntry[]>;
      oldest?(channel: string): Promise<string | undefined>;
    };
    logs: (jobId: string) => Promise<JobLogEntry[]>;
    /** Reads the platform's history into the log since `from` (the gap before recording began). */
    backfill?: (channel: string, from: string) => Promise<unknown>;
  },
  job: JobRecord,
  now: Date,
): Promise<DigestInput | undefined> {
  if (!readsHistory(job.prompt)) return undefined;
  const channel = recordedChannelOf(o.config, job.target);
  if (!channel) return undefined;
  if (!mayReadChannel(o.config, job))
    return {
      refused: `its creator ${job.createdBy} may not read ${channel} (the channel's allowFrom leaves them out)`,
    };
  const { from, named } = periodStart(job.prompt, await o.logs(job.id), now);
  if (o.backfill && o.channelLog.oldest) {
    const oldest = await o.channelLog.oldest(channel);
    if (oldest === undefined || oldest > from.toISOString()) await o.backfill(channel, from.toISOString());
  }
  const entries = await o.channelLog.list(channel, { from: from.toISOString(), to: now.toISOString() });
  // A job aimed at one thread reads that thread only.
  const thread = decodeConversationKey(job.target).threadId;
  const mine = thread ? entries.filter((e) => e.threadId === thread || e.messageId === thread) : entries;
  return {
    blocks: renderHistory(mine, job.timezone),
    messages: mine.length,
    period: periodWords(from, named, job.prompt, job.timezone),
  };
}
