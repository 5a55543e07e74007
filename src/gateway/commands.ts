// Chat commands every channel understands: /help, /whoami, /reset, /stop. They answer at once
// (they never wait behind a running turn; /stop is what cancels it).
import type { InboundMessage } from '../adapters/index.ts';
import type { ResolvedPolicy } from './policy.ts';

/** A recognized command. */
export type Command = 'help' | 'whoami' | 'reset' | 'stop' | 'start';

/** The command in `text`, if it is one (`/reset`, `/reset@mybot`, `!reset` is not). */
export function parseCommand(text: string): Command | undefined {
  const m = /^\/([a-z]+)(?:@[A-Za-z0-9_]+)?\s*$/i.exec(text.trim());
  const name = m?.[1]?.toLowerCase();
  return name === 'help' || name === 'whoami' || name === 'reset' || name === 'stop' || name === 'start'
    ? name
    : undefined;
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

/** The /help text. */
export function helpText(): string {
  return commandHelp('I am an AI assistant. Talk to me in plain words; in groups, mention me.', [
    ['reset', 'forget this conversation'],
    ['stop', 'stop what I am doing'],
    ['whoami', 'what I may do for you here'],
    ['help', 'this text'],
  ]);
}

/** The /whoami lines after who the user is: the access mode, the tools permitted and the model. */
export function accessLines(access: ResolvedPolicy['access'], tools: string[], model?: string): string[] {
  return [
    `Access: ${ACCESS_WORDS[access]}.`,
    `Tools: ${tools.length ? tools.join(', ') : 'none'}.`,
    ...(model ? [`Model: ${model}.`] : []),
  ];
}

/** The /whoami text: who the user is to boxbot, the access mode and the tools permitted here. */
export function whoamiText(msg: InboundMessage, policy: ResolvedPolicy, tools: string[]): string {
  return [
    `You are ${msg.userName} (${msg.platform} user ${msg.userId}) in ${msg.conversationKey}.`,
    ...accessLines(policy.access, tools, policy.model),
  ].join('\n');
}
