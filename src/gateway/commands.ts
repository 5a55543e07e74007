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

/** The /help text. */
export function helpText(): string {
  return [
    'I am an AI assistant. Talk to me in plain words; in groups, mention me.',
    '',
    '/reset: forget this conversation',
    '/stop: stop what I am doing',
    '/whoami: what I may do for you here',
    '/help: this text',
  ].join('\n');
}

/** The /whoami text: who the user is to boxbot, the access mode and the tools permitted here. */
export function whoamiText(msg: InboundMessage, policy: ResolvedPolicy, tools: string[]): string {
  return [
    `You are ${msg.userName} (${msg.platform} user ${msg.userId}) in ${msg.conversationKey}.`,
    `Access: ${ACCESS_WORDS[policy.access]}.`,
    `Tools: ${tools.length ? tools.join(', ') : 'none'}.`,
    ...(policy.model ? [`Model: ${policy.model}.`] : []),
  ].join('\n');
}
