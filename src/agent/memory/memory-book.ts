// What one speaker in one conversation may see of long-term memory: their own user-scoped notes
// and the conversation's, never another user's. Every read, write and removal goes through here,
// so the memory tools and the /memory and /forget commands cannot reach past that view. A note of
// the conversation is everyone's to read but only its author's (or an admin's) to delete.
import { randomBytes } from 'node:crypto';
import type { MemoryRecord, MemoryScope, MemoryStore } from '../../store/index.ts';

/** The speaker and conversation a memory call is made for. */
export interface MemoryView {
  conversationKey: string;
  /** `<platform>:<userId>` of the speaker. */
  userKey: string;
  /** The speaker is an admin: they may delete any note of the conversation, not only their own. */
  admin?: boolean;
}

/** Longest note kept (characters); a longer one is refused, so no note crowds out the others. */
export const MAX_MEMORY_CHARS = 1000;
/** Most notes one scope keeps; remembering more asks the model to forget something first. */
export const MAX_MEMORIES_PER_SCOPE = 200;

/** The scope a note is saved to: the speaker (default) or everyone in the conversation. */
export type ScopeChoice = 'user' | 'conversation';

/** The store scope of `choice` for `view`. */
export function scopeOf(view: MemoryView, choice: ScopeChoice): MemoryScope {
  return choice === 'user'
    ? { kind: 'user', userKey: view.userKey }
    : { kind: 'conversation', conversationKey: view.conversationKey };
}

/** Every note visible in `view`, oldest first. */
export async function visibleMemories(store: MemoryStore, view: MemoryView): Promise<MemoryRecord[]> {
  const [mine, here] = await Promise.all([
    store.list(scopeOf(view, 'user')),
    store.list(scopeOf(view, 'conversation')),
  ]);
  return [...mine, ...here].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Saves a note; returns it, or why it was not saved. */
export async function remember(
  store: MemoryStore,
  view: MemoryView,
  text: string,
  choice: ScopeChoice,
  now = new Date(),
  untrusted?: string,
): Promise<{ ok: true; record: MemoryRecord } | { ok: false; reason: string }> {
  const t = text.trim();
  if (!t) return { ok: false, reason: 'the note is empty' };
  if (t.length > MAX_MEMORY_CHARS)
    return { ok: false, reason: `the note is ${t.length} characters; keep it under ${MAX_MEMORY_CHARS}` };
  const scope = scopeOf(view, choice);
  const existing = await store.list(scope);
  if (existing.some((m) => m.text === t)) return { ok: false, reason: 'that note is saved already' };
  if (existing.length >= MAX_MEMORIES_PER_SCOPE)
    return { ok: false, reason: `${MAX_MEMORIES_PER_SCOPE} notes are saved here already; forget one first` };
  const record: MemoryRecord = {
    id: `m-${randomBytes(4).toString('hex')}`,
    scope,
    text: t,
    createdAt: now.toISOString(),
    createdBy: view.userKey,
    conversationKey: view.conversationKey,
    ...(untrusted ? { untrusted } : {}),
  };
  await store.add(record);
  return { ok: true, record };
}

/** Whether the speaker may delete `note`: their own, or any as an admin (a note of unknown author: admins only). */
const mayDelete = (view: MemoryView, note: MemoryRecord): boolean =>
  note.scope.kind === 'user' || view.admin === true || note.createdBy === view.userKey;

/** What became of a note to delete: deleted, not visible here, or another user's note of the conversation. */
export type Forgotten = 'deleted' | 'missing' | 'not-yours';

/** Removes one visible note by id, if the speaker may delete it. */
export async function forget(store: MemoryStore, view: MemoryView, id: string): Promise<Forgotten> {
  if (await store.remove(scopeOf(view, 'user'), id)) return 'deleted';
  const here = scopeOf(view, 'conversation');
  const note = (await store.list(here)).find((m) => m.id === id);
  if (!note) return 'missing';
  if (!mayDelete(view, note)) return 'not-yours';
  return (await store.remove(here, id)) ? 'deleted' : 'missing';
}

/**
 * Removes every visible note the speaker may delete (their own, and the conversation's they saved,
 * or all of the conversation's for an admin); `kept`: the conversation's notes other users saved.
 */
export async function forgetAll(store: MemoryStore, view: MemoryView): Promise<{ deleted: number; kept: number }> {
  const mine = await store.clear(scopeOf(view, 'user'));
  const here = scopeOf(view, 'conversation');
  if (view.admin) return { deleted: mine + (await store.clear(here)), kept: 0 };
  let deleted = mine;
  let kept = 0;
  for (const note of await store.list(here)) {
    if (!mayDelete(view, note)) kept++;
    else if (await store.remove(here, note.id)) deleted++;
  }
  return { deleted, kept };
}

/** One note as a line: id, who sees it, text. */
export function memoryLine(m: MemoryRecord, maxChars = Infinity): string {
  const where = m.scope.kind === 'user' ? 'you' : 'this conversation';
  const text = m.text.length > maxChars ? `${m.text.slice(0, maxChars - 1)}…` : m.text;
  return `- [${m.id}] (${where}, ${m.createdAt.slice(0, 10)}) ${text.replace(/\s+/g, ' ')}`;
}
