// What each web chat session showed (the page's events: messages, edits folded in, tool entries,
// notes), so a reload, a restart, another browser or another replica draws the same page. One
// document per session on the file backend (`web-display/by-session/<shard>/<name>.json`), one row
// per session on PostgreSQL; changed by read-modify-write under the session's lock, so a replica's
// echo of a message and another's answer never overwrite each other.
import { z } from 'zod';
import type { DocSpec, Documents } from './documents.ts';
import { encodeName, shardOf } from './names.ts';

/** One event a session showed, in the page's own shape (kept as JSON; `type` names it). */
export type ShownEvent = { type: string; id?: string; [key: string]: unknown };

/** The web chat's record of what each session showed. */
export interface WebDisplayStore {
  /** What `session` showed, oldest first; empty for a session never recorded. */
  read(session: string): Promise<ShownEvent[]>;
  /**
   * Changes what `session` shows: `fn` gets the events recorded now (its own copy) and returns the
   * new list. Atomic per session across every process on the store; nothing is written if `fn` throws.
   */
  update(session: string, fn: (events: ShownEvent[]) => ShownEvent[]): Promise<void>;
}

/** Events kept per session (the oldest go first). */
export const MAX_SHOWN_EVENTS = 2000;
/** The most characters of JSON one session's record keeps (the oldest events go first). */
export const MAX_SHOWN_CHARS = 8 * 1024 * 1024;

const shownSchema = z.object({ type: z.string() }).passthrough();
const docSchema = z.object({ session: z.string(), events: z.array(shownSchema) }).passthrough();
type Doc = { session: string; events: ShownEvent[] };

function spec(session: string): DocSpec {
  return {
    path: `web-display/by-session/${shardOf(session)}/${encodeName(session)}.json`,
    schema: docSchema,
    check: (data) => ((data as Doc).session === session ? undefined : 'holds the display of another session'),
  };
}

/** The display record as documents (files and memory backends). */
export function createWebDisplay(docs: Documents): WebDisplayStore {
  return {
    async read(session) {
      return (await docs.read<Doc>(spec(session)))?.events ?? [];
    },
    async update(session, fn) {
      await docs.update<Doc>(spec(session), (cur) => ({ session, events: fn(structuredClone(cur?.events ?? [])) }));
    },
  };
}
