// What each web chat session showed, kept so a reload, a restart, another browser or another
// replica draws the same page: the events the page got (user messages, answers with their files
// and buttons, tool activity, notes), folded (a message's streamed edits merge into it, in its
// place) into the store's record of the session (`webDisplay`, read through a structural view: the
// adapter does not import the store). The page replays them through the same code that drew them
// live, so command answers, "(stopped)", errors and /stop stay where they were shown. The store's
// conversation cannot hold this: commands never reach it, and it keeps what the model saw.
// Records of older versions (one JSON file per session in `<dataDir>/web-display/`) move into the
// store at start (migrateDisplayFiles).
import { readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { WEB_ID } from './normalize.ts';

/** One event as the page draws it (a structural view of the adapter's events). */
export type ShownEvent = { type: string; id?: string; [key: string]: unknown };

/** Where the record is kept (the store's WebDisplayStore fits). */
export interface DisplaySource {
  read(session: string): Promise<ShownEvent[]>;
  update(session: string, fn: (events: ShownEvent[]) => ShownEvent[]): Promise<void>;
}

/** A session's shown events and the last event number of this process they include. */
export interface ShownPage {
  events: ShownEvent[];
  /** Events numbered after this (this process's numbering) are not in `events`. */
  seq: number;
}

/** The display log of all web chat sessions. */
export interface DisplayLog {
  /** Records an event shown to `session` (numbered `seq` in this process); written soon after. */
  add(session: string, seq: number, event: ShownEvent): void;
  /** What `session` has shown so far (empty for a session never seen), with what this process added. */
  read(session: string): Promise<ShownPage>;
  /** The page id of the last user message `session` showed, with what this process added. */
  lastUserMessage(session: string): Promise<string | undefined>;
  /** Waits until every recorded event is written. */
  flush(): Promise<void>;
}

/** Events kept per session (the oldest go first; the store keeps as many). */
export const MAX_SHOWN_EVENTS = 2000;
/** Events waiting to be written per session while the store fails (the oldest go first). */
const MAX_WAITING = MAX_SHOWN_EVENTS;

interface Entry {
  waiting: { seq: number; event: ShownEvent }[];
  /** Writes and reads of this session, in order: a read never runs beside this process's write. */
  chain: Promise<void>;
  /** A write is queued on the chain and will take whatever is waiting when it runs. */
  queued: boolean;
  /** The last event number of this process in the store. */
  written: number;
}

/**
 * Folds `event` into `events`: an edit replaces its message's content in place; a repeated user
 * message is dropped; a `replace` removes the turn it names (the page draws the new one after).
 */
export function foldShown(events: ShownEvent[], event: ShownEvent, max = MAX_SHOWN_EVENTS): void {
  if (event.type === 'replace') {
    // Edit and Regenerate: the turn goes, its user message and everything that answered it.
    const gone = (e: ShownEvent) => (e.type === 'user' && e.id === event.of) || e.for === event.of;
    for (let i = events.length - 1; i >= 0; i--) if (gone(events[i]!)) events.splice(i, 1);
    return;
  }
  const isBot = event.type === 'message' || event.type === 'edit';
  if (isBot || event.type === 'user') {
    const at = events.findIndex((e) => e.id === event.id && e.type === (isBot ? 'message' : 'user'));
    if (at >= 0) {
      if (isBot) events[at] = { ...events[at], ...event, type: 'message' };
      return;
    }
  }
  events.push(isBot ? { ...event, type: 'message' } : event);
  if (events.length > max) events.splice(0, events.length - max);
}

/**
 * A display log over `source`. Events are written in batches (a streamed answer's edits while a
 * write is in flight go in the next one); a failed write keeps its events for the next, logged.
 */
export function createDisplayLog(source: DisplaySource, log: Logger, max = MAX_SHOWN_EVENTS): DisplayLog {
  const entries = new Map<string, Entry>();
  const entryOf = (session: string): Entry => {
    let entry = entries.get(session);
    if (!entry) entries.set(session, (entry = { waiting: [], chain: Promise.resolve(), queued: false, written: 0 }));
    return entry;
  };
  const write = async (session: string, entry: Entry) => {
    entry.queued = false;
    const batch = entry.waiting.splice(0);
    if (!batch.length) return;
    try {
      await source.update(session, (events) => {
        for (const b of batch) foldShown(events, b.event, max);
        return events;
      });
      entry.written = batch.at(-1)!.seq;
    } catch (e) {
      entry.waiting.unshift(...batch);
      if (entry.waiting.length > MAX_WAITING) entry.waiting.splice(0, entry.waiting.length - MAX_WAITING);
      log.warn({ session, err: errorMessage(e) }, 'web chat display record not written; kept for the next write');
    }
  };
  const read = async (session: string): Promise<ShownPage> => {
    const entry = entryOf(session);
    let page: ShownPage = { events: [], seq: 0 };
    const reading = entry.chain.then(async () => {
      page = { events: await source.read(session), seq: entry.written };
    });
    entry.chain = reading.catch(() => {});
    await reading;
    return page;
  };
  return {
    add(session, seq, event) {
      const entry = entryOf(session);
      entry.waiting.push({ seq, event });
      if (entry.queued) return;
      entry.queued = true;
      entry.chain = entry.chain.then(() => write(session, entry));
    },
    read,
    async lastUserMessage(session) {
      const { events } = await read(session);
      const last = events.findLast((e) => e.type === 'user');
      return typeof last?.id === 'string' ? last.id : undefined;
    },
    async flush() {
      for (const [session, entry] of entries) {
        await entry.chain;
        if (entry.waiting.length) await (entry.chain = entry.chain.then(() => write(session, entry)));
      }
    },
  };
}

/**
 * Moves the records of older versions (`<dir>/<session>.json`, a list of events each) into
 * `source`, each renamed `.migrated` once its session holds it; a session the store already
 * records keeps the store's. A file that does not parse is moved aside (`.corrupt-<time>`) and
 * reported. Returns how many were moved in.
 */
export async function migrateDisplayFiles(dir: string, source: DisplaySource, log: Logger): Promise<number> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  let moved = 0;
  for (const name of names) {
    const session = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (!WEB_ID.test(session)) continue;
    const file = join(dir, name);
    let events: ShownEvent[] | undefined;
    try {
      const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
      if (Array.isArray(parsed) && parsed.every((e) => e && typeof e === 'object' && typeof e.type === 'string'))
        events = parsed as ShownEvent[];
    } catch {}
    if (!events) {
      const aside = `${file}.corrupt-${Date.now()}`;
      await rename(file, aside);
      log.warn({ session, movedTo: aside }, 'web chat display file unreadable: moved aside, not migrated');
      continue;
    }
    const kept = events.slice(-MAX_SHOWN_EVENTS);
    await source.update(session, (cur) => (cur.length ? cur : kept));
    await rename(file, `${file}.migrated`);
    moved++;
  }
  if (moved) log.info({ sessions: moved, dir }, 'web chat display files moved into the store');
  return moved;
}
