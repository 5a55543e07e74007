// What the web chat shows of a stored conversation: the saved history (the store's messages,
// read through a structural view so the adapter imports neither the store nor the agent) turned
// into what the page draws (the user's words, tool calls as collapsible entries, the bot's answers),
// and the list of one browser's conversations for the sidebar.

import { redactSecrets } from '../../core/redact.ts';

/** The parts of a stored message the page shows (a structural view of the agent's ContentPart). */
export type StoredPart =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; id: string; name: string; input: unknown }
  | { type: 'tool-result'; id: string; name: string; content: string; isError: boolean }
  | { type: string; [key: string]: unknown };

/** The store's view of one conversation, as far as the web chat reads it. */
export interface StoredConversation {
  key: string;
  updatedAt: string;
  /** `inboundId`: the gateway tags the message that started a turn with the inbound message's id. */
  messages: { role: 'user' | 'assistant'; content: StoredPart[]; inboundId?: string }[];
}

/** Where stored conversations come from (the store's ConversationStore fits). */
export interface ConversationSource {
  get(key: string): Promise<StoredConversation | undefined>;
  keys(): Promise<string[]>;
}

/** One tool call as the page shows it. */
export interface TranscriptTool {
  name: string;
  input: string;
  result?: string;
  isError?: boolean;
}

/** One entry of the transcript the page draws. */
export type TranscriptEntry =
  /** `id`: the page's id of the message that started this turn (its live events name it). */
  | { role: 'user'; text: string; id?: string }
  | { role: 'bot'; text: string }
  | { role: 'tools'; tools: TranscriptTool[] };

/** One conversation in the sidebar. */
export interface SessionSummary {
  session: string;
  title: string;
  updatedAt: string;
}

/** How much of a tool's input and of its output the page shows (characters, each). */
export const MAX_TOOL_TEXT = 4000;
/**
 * A tool's input or output as the page shows it: redacted as log lines are (this process's secrets
 * and anything shaped like a key: a tool may echo an environment value), then capped, with a note
 * saying so (redacted first: a cut must not leave half a key unrecognised). `total`: the length of
 * the whole text when `s` is already only its start.
 * Example: clip('x'.repeat(5000)) → 4000 x's, then '\n… [truncated: 5000 characters in all]'
 */
export const clip = (s: string, total = s.length) => {
  const shown = redactSecrets(s);
  if (shown.length <= MAX_TOOL_TEXT && total <= s.length) return shown;
  return `${shown.slice(0, MAX_TOOL_TEXT)}\n… [truncated: ${Math.max(total, s.length)} characters in all]`;
};
const textOf = (parts: StoredPart[]) =>
  parts.flatMap((p) => (p.type === 'text' ? [(p as { text: string }).text] : [])).join('');

/**
 * Where the gateway's note on the files of a stored user turn starts (runner/media-input.ts writes
 * it for the model: saved paths, then any document text); the page shows the user's side instead.
 */
const FILES_NOTE = '[The user sent files; they are saved in your workspace:';
/** One file line of that note: `- inbox/<saved name> (<type>, <size>[, sent as "<name>"])…`. */
const FILE_LINE = /^- inbox\/(\S+) \([^,\n]*, [^,)\n]*(?:, sent as "([^"\n]*)")?\)/gm;
/** The saved name's prefix the gateway adds (`<date>-<time>-<tag>-`, see media/file-name.ts). */
const SAVED_PREFIX = /^\d{8}-\d{6}-[0-9a-f]{4}-/;

/**
 * A stored user turn as the user sent it: their words, then one `📎 name` line per file, without
 * the note for the model (which may hold whole documents).
 * Example: userSide('hi\n\n[The user sent files; …:\n- inbox/20261124-093000-3f2a-cat.png (image/png, 1 KB)\n]')
 *   → 'hi\n📎 cat.png'
 */
function userSide(text: string): string {
  const at = text.indexOf(FILES_NOTE);
  if (at < 0) return text;
  const note = text.slice(at, text.indexOf('\n]', at) + 1 || undefined);
  const names = [...note.matchAll(FILE_LINE)].map((m) => m[2] ?? m[1]!.replace(SAVED_PREFIX, ''));
  return [text.slice(0, at).trimEnd(), ...names.map((n) => `📎 ${n}`)].filter(Boolean).join('\n');
}

/**
 * The page's transcript of a stored history: user inputs, each model turn's tool calls (with
 * their results) as one tools entry, and the text of every answer.
 */
export function transcriptOf(messages: StoredConversation['messages']): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  const calls = new Map<string, TranscriptTool>();
  for (const m of messages) {
    if (m.role === 'user') {
      for (const p of m.content) {
        if (p.type !== 'tool-result') continue;
        const r = p as Extract<StoredPart, { type: 'tool-result' }>;
        const call = calls.get(r.id);
        if (call) Object.assign(call, { result: clip(r.content), isError: r.isError });
      }
      const text = userSide(textOf(m.content));
      // `web:<session>:<id>` → the id the page gave the message.
      const id = m.inboundId?.slice(m.inboundId.lastIndexOf(':') + 1);
      if (text.trim()) out.push({ role: 'user', text, ...(id ? { id } : {}) });
      continue;
    }
    const text = textOf(m.content);
    if (text.trim()) out.push({ role: 'bot', text });
    const tools: TranscriptTool[] = [];
    for (const p of m.content) {
      if (p.type !== 'tool-call') continue;
      const c = p as Extract<StoredPart, { type: 'tool-call' }>;
      const tool: TranscriptTool = { name: c.name, input: clip(JSON.stringify(c.input, null, 2) ?? '') };
      calls.set(c.id, tool);
      tools.push(tool);
    }
    if (tools.length) out.push({ role: 'tools', tools });
  }
  return out;
}

/** The conversations of one browser (`web:<owner>-…`), most recent first, each titled by its first words. */
export async function sessionsOf(source: ConversationSource, owner: string, limit = 50): Promise<SessionSummary[]> {
  const prefix = `web:${owner}-`;
  const keys = (await source.keys()).filter((k) => k.startsWith(prefix));
  const found = await Promise.all(keys.map((k) => source.get(k).catch(() => undefined)));
  return found
    .filter((c): c is StoredConversation => c !== undefined && c.messages.length > 0)
    .map((c) => {
      const first = transcriptOf(c.messages).find((e) => e.role === 'user');
      const title = first && first.role === 'user' ? first.text.replace(/\s+/g, ' ').trim().slice(0, 80) : '';
      return { session: c.key.slice('web:'.length), title: title || 'Conversation', updatedAt: c.updatedAt };
    })
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    .slice(0, limit);
}
