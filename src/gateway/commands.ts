// Chat commands every channel understands: /help, /whoami, /new, /model, /usage, /status,
// /compact, /reset, /stop, and /approve, /deny (typed answers to approval questions where the
// platform has no buttons). They answer at once (they never wait behind a running turn; /stop is
// what cancels it; /compact waits for the turn, as it rewrites the history).
import type { CommandSpec, InboundMessage } from '../adapters/index.ts';
import type { CommandLevel } from '../runner/command-access.ts';
import type { ResolvedPolicy } from '../runner/policy.ts';
import type { UsageView } from '../runner/ports.ts';
import type { UsageTotals } from '../store/index.ts';

/**
 * The commands, in menu order (the platform menus and /help list them), each with its access
 * level (command-access.ts): `write` for those that delete what the conversation keeps. /new only
 * archives, /compact keeps the older turns as a summary, /model picks among the models the policy
 * allows, and /approve and /deny are checked against the approvers: all `read`.
 */
const COMMANDS = [
  ['new', 'start a fresh session (the old one is archived)', 'read'],
  ['model', 'show or switch the model', 'read', { name: 'name', description: 'the model to switch to' }],
  ['usage', 'tokens and cost, today and in total, and the budget left', 'read'],
  ['status', 'the model, access, and work running or queued', 'read'],
  ['compact', 'summarise the older turns to save context', 'read'],
  ['stop', 'stop what I am doing', 'read'],
  ['reset', 'forget this conversation', 'write'],
  ['whoami', 'what I may do for you here', 'read'],
  ['help', 'this text', 'read'],
  [
    'approve',
    'approve a tool call (where there are no buttons)',
    'read',
    { name: 'id', description: 'the request id' },
  ],
  ['deny', 'deny a tool call (where there are no buttons)', 'read', { name: 'id', description: 'the request id' }],
] as const satisfies readonly (
  | readonly [string, string, CommandLevel]
  | readonly [string, string, CommandLevel, { readonly name: string; readonly description: string }]
)[];

/** A recognized command. */
export type Command = (typeof COMMANDS)[number][0] | 'start';

/** Commands that take an argument; the others with one are plain text. */
const TAKES_ARGUMENT: ReadonlySet<Command> = new Set(['model', 'approve', 'deny']);
const NAMES: ReadonlySet<string> = new Set([...COMMANDS.map((c) => c[0]), 'start']);

/** The access level of a command (`/start` is /help's other name). */
export function commandLevel(name: Command): CommandLevel {
  return COMMANDS.find((c) => c[0] === name)?.[2] ?? 'read';
}

/** The commands as registered in a platform's own menu (Telegram setMyCommands, Discord slash commands). */
export const COMMAND_SPECS: CommandSpec[] = COMMANDS.map(([name, description, , argument]) => ({
  name,
  description,
  ...(argument ? { argument: { ...argument } } : {}),
}));

/** A command and its argument. */
export interface ParsedCommand {
  name: Command;
  arg?: string;
}

/** The command in `text` with its argument (`/model gpt-4o`, `/approve@mybot ab12`), if it is one. */
export function parseChatCommand(text: string): ParsedCommand | undefined {
  const m = /^\/([a-z]+)(?:@[A-Za-z0-9_]+)?(?:\s+(\S[\s\S]*?))?\s*$/i.exec(text.trim());
  const name = m?.[1]?.toLowerCase();
  if (!name || !NAMES.has(name)) return undefined;
  const arg = m?.[2]?.trim();
  if (arg && !TAKES_ARGUMENT.has(name as Command)) return undefined;
  return { name: name as Command, ...(arg ? { arg } : {}) };
}

/** The command in `text` without an argument, if it is one (`/reset`, `/reset@mybot`; `!reset` is not). */
export function parseCommand(text: string): Command | undefined {
  const c = parseChatCommand(text);
  return c && !c.arg ? c.name : undefined;
}

const ACCESS_WORDS: Record<ResolvedPolicy['access'], string> = {
  full: 'full (tools may read, write and run code in this conversation’s workspace)',
  'read-only': 'read-only (tools may read this conversation’s workspace, never write or run code)',
  'chat-only': 'chat only (no tools that touch files, network or code)',
};

/** A help text: an intro line, a blank line, then one `/name: what it does` line per command. */
export function commandHelp(intro: string, commands: [name: string, what: string][]): string {
  return [intro, '', ...commands.map(([name, what]) => `/${name}: ${what}`)].join('\n');
}

/** The /help text, listing the commands whose level `may` allows (default: all). */
export function helpText(may: (level: CommandLevel) => boolean = () => true): string {
  return commandHelp(
    'I am an AI assistant. Talk to me in plain words; in groups, mention me.',
    COMMANDS.filter(([, , level]) => may(level)).map(([name, what, , arg]) => [
      arg ? `${name} [${arg.name}]` : name,
      what,
    ]),
  );
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
    `You are ${msg.userName} (${msg.platform} user ${msg.userId}) in ${msg.conversationKey}.`,
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
  ].join('\n');
}
