// What the chat commands say: /help's layout, /whoami, /model's list, /usage and /status, as
// pure functions of what the commands read (the terminal chat's /help and /whoami use them too).
import type { InboundMessage } from '../../adapters/index.ts';
import type { ResolvedPolicy } from '../../runner/policy.ts';
import type { UsageView } from '../../runner/ports.ts';
import type { UsageTotals } from '../../store/index.ts';

/** The reply of a command whose control the agent runner does not offer. */
export const NOT_HERE = 'That command is not available here.';

const ACCESS_WORDS: Record<ResolvedPolicy['access'], string> = {
  full: 'full (tools may read, write and run code in this conversation’s workspace)',
  'read-only': 'read-only (tools may read this conversation’s workspace, never write or run code)',
  'chat-only': 'chat only (no tools that touch files, network or code)',
};

/** A help text: an intro line, a blank line, then one `/name: what it does` line per command. */
export function commandHelp(intro: string, commands: [name: string, what: string][]): string {
  return [intro, '', ...commands.map(([name, what]) => `/${name}: ${what}`)].join('\n');
}

/** The /whoami lines after who the user is: the access mode, the tools permitted and the model. */
export function accessLines(access: ResolvedPolicy['access'], tools: string[], model?: string): string[] {
  return [
    `Access: ${ACCESS_WORDS[access]}.`,
    `Tools: ${tools.length ? tools.join(', ') : 'none'}.`,
    ...(model ? [`Model: ${model}.`] : []),
  ];
}

/** The /whoami text: who the user is to boxbot, the access mode, the tools permitted here and which need approval. */
export function whoamiText(
  msg: InboundMessage,
  policy: ResolvedPolicy,
  tools: string[],
  needApproval: string[] = [],
): string {
  return [
    msg.signedInAs
      ? `You are ${msg.signedInAs}, signed in to the web chat, in ${msg.conversationKey}.`
      : `You are ${msg.userName} (${msg.platform} user ${msg.userId}) in ${msg.conversationKey}.`,
    ...accessLines(policy.access, tools, policy.model),
    ...(needApproval.length ? [`Needs approval: ${needApproval.join(', ')}.`] : []),
    ...(policy.approvals?.afterUntrusted
      ? ['After I read something I cannot trust (a web page), every write or command needs approval.']
      : []),
  ].join('\n');
}

/** The allowed model `name` means (`openai/gpt-4o`, or `gpt-4o` when only one provider has it). */
export function matchModel(name: string, allowed: string[]): string | undefined {
  const exact = allowed.find((m) => m.toLowerCase() === name.toLowerCase());
  if (exact) return exact;
  const bare = allowed.filter((m) => m.split('/').slice(1).join('/').toLowerCase() === name.toLowerCase());
  return bare.length === 1 ? bare[0] : undefined;
}

/** The `/model` list: each allowed model, the current one marked. */
export function modelListText(allowed: string[], current: string | undefined): string {
  if (!allowed.length) return `The model here is ${current ?? 'the default'}; no others are allowed.`;
  return [
    'Models you can use here:',
    ...allowed.map((m) => `• ${m}${m === current ? ' (current)' : ''}`),
    'Switch with /model <name>.',
  ].join('\n');
}

const n = (x: number) => x.toLocaleString('en-US');
const money = (x: number) => (x >= 0.01 || x === 0 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`);
const totals = (t: UsageTotals) =>
  `${n(t.inputTokens + t.cacheReadTokens + t.cacheWriteTokens)} tokens in, ${n(t.outputTokens)} out, ` +
  `${money(t.costUsd)}${t.unknownCostCalls ? ` (+${t.unknownCostCalls} calls of unknown price)` : ''}`;

/** The `/usage` text. */
export function usageText(u: UsageView): string {
  const left = (spent: number, limit: number | undefined, who: string) =>
    limit === undefined ? [] : [`${who}: ${money(Math.max(0, limit - spent))} left of ${money(limit)} today.`];
  return [
    `Usage (UTC day ${u.day}):`,
    `This conversation: today ${totals(u.conversation.day)}; in total ${totals(u.conversation.total)}.`,
    `You: today ${totals(u.user.day)}; in total ${totals(u.user.total)}.`,
    ...left(u.channelUsdToday ?? u.conversation.day.costUsd, u.budget?.conversationUsdPerDay, 'Conversation budget'),
    ...left(u.user.day.costUsd, u.budget?.userUsdPerDay, 'Your budget'),
    ...(u.budget?.conversationUsdPerDay === undefined && u.budget?.userUsdPerDay === undefined
      ? ['No daily budget is set here.']
      : []),
  ].join('\n');
}

/** The `/status` text. */
export function statusText(s: {
  model: string | undefined;
  access: ResolvedPolicy['access'];
  running: boolean;
  queued: number;
  approvals: number;
  /** Set when the channel is recorded for digests: how many days its messages are kept. */
  recordedDays?: number;
}): string {
  const work = s.running
    ? `Working on a message${s.queued > 1 ? `, ${s.queued - 1} more queued` : ''}.`
    : s.queued
      ? `${s.queued} queued.`
      : 'Idle.';
  return [
    `Model: ${s.model ?? 'the default'}.`,
    `Access: ${ACCESS_WORDS[s.access]}.`,
    work,
    ...(s.approvals ? [`Waiting for approval of ${s.approvals} tool call${s.approvals > 1 ? 's' : ''}.`] : []),
    ...(s.recordedDays !== undefined
      ? [
          `This channel is recorded for digests: every message here is kept ${s.recordedDays} day${
            s.recordedDays === 1 ? '' : 's'
          }.`,
        ]
      : []),
  ].join('\n');
}
