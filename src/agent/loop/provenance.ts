// What untrusted content a context holds, read from the provenance stored with its parts: a run
// is tainted (approvals.afterUntrusted) while its context holds any untrusted part, whichever run
// took it in, until the history is cleared (/new, /reset). Who wrote the turn inputs is the
// caller's to judge (the runner knows the requester); this reads tool results and what messages carry.
import type { Message } from '../types.ts';

/** How a tool result stored before sources were recorded is named: it may hold anything. */
export const UNRECORDED_RESULT = 'tool results saved before boxbot recorded where results came from';

/**
 * The untrusted content `messages` hold, in words, each once: tool results marked untrusted,
 * what messages carry (summaries, answers written after reading some). A result without a
 * source of a tool that `mayBringOutside` (network, MCP, or no longer known) was stored by an
 * older boxbot, which recorded none: it may have been a web page, so it counts as untrusted.
 * Other results without a source are the tool's own (the part names the tool).
 * Example: untrustedIn(history, tools.mayBringOutside) → ['the result of web_fetch(url="https://example.com")']
 */
export function untrustedIn(messages: Message[], mayBringOutside: (tool: string) => boolean): string[] {
  const out = new Set<string>();
  for (const m of messages) {
    for (const u of m.untrusted ?? []) out.add(u);
    for (const p of m.content) {
      if (p.type !== 'tool-result') continue;
      if (p.from?.untrusted) out.add(p.from.untrusted);
      else if (!p.from && mayBringOutside(p.name)) out.add(UNRECORDED_RESULT);
    }
  }
  return [...out];
}

/** `messages` with `untrusted` added to what the last one carries (a run's answer keeps what the run read). */
export function carryTaint(messages: Message[], untrusted: readonly string[]): Message[] {
  const last = messages.at(-1);
  if (!last || untrusted.length === 0) return messages;
  const carried = [...new Set([...(last.untrusted ?? []), ...untrusted])];
  return [...messages.slice(0, -1), { ...last, untrusted: carried }];
}
