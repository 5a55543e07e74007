// What each web chat session showed, kept so a reload, a restart or another browser draws the same
// page: the events the page got (user messages, answers with their files and buttons, tool
// activity, notes), folded (a message's streamed edits merge into it, in its place) and written to
// one JSON file per session. The page replays them through the same code that drew them live, so
// command answers, "(stopped)", errors and /stop stay where they were shown. The store's
// conversation cannot hold this: commands never reach it, and it keeps what the model saw.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';

/** One event as the page draws it (a structural view of the adapter's events). */
export type ShownEvent = { type: string; id?: string; [key: string]: unknown };

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
  /** What `session` has shown so far (empty for a session never seen). */
  read(session: string): Promise<ShownPage>;
  /** Waits until every recorded event is on disk. */
  flush(): Promise<void>;
}

/** Events kept per session (the oldest go first). */
export const MAX_SHOWN_EVENTS = 2000;

interface Entry {
  events: ShownEvent[];
  seq: number;
  /** Loading, then each fold, in order. */
  chain: Promise<void>;
  writing?: Promise<void>;
  dirty: boolean;
}

/** Folds `event` into `events`: an edit replaces its message's content in place; a repeated user message is dropped. */
export function foldShown(events: ShownEvent[], event: ShownEvent, max = MAX_SHOWN_EVENTS): void {
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
 * A display log under `dir` (one `<session>.json` each, written whole then renamed). A file that
 * does not parse is moved aside (`.corrupt-<time>`) and reported; the session then starts empty.
 */
export function createDisplayLog(dir: string, log: Logger, max = MAX_SHOWN_EVENTS): DisplayLog {
  const entries = new Map<string, Entry>();
  const fileOf = (session: string) => join(dir, `${session}.json`);

  const load = async (session: string): Promise<ShownEvent[]> => {
    let text: string;
    try {
      text = await readFile(fileOf(session), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed) && parsed.every((e) => e && typeof e === 'object' && typeof e.type === 'string'))
        return parsed as ShownEvent[];
    } catch {}
    const aside = `${fileOf(session)}.corrupt-${Date.now()}`;
    await rename(fileOf(session), aside);
    log.warn({ session, movedTo: aside }, 'web chat display log unreadable: moved aside, the session starts empty');
    return [];
  };

  const write = (session: string, entry: Entry) => {
    entry.dirty = true;
    if (entry.writing) return;
    entry.writing = (async () => {
      while (entry.dirty) {
        entry.dirty = false;
        const file = fileOf(session);
        try {
          await mkdir(dir, { recursive: true });
          await writeFile(`${file}.tmp`, JSON.stringify(entry.events));
          await rename(`${file}.tmp`, file);
        } catch (e) {
          log.warn({ session, err: errorMessage(e) }, 'web chat display log not written');
        }
      }
      entry.writing = undefined;
    })();
  };

  const entryOf = (session: string): Entry => {
    let entry = entries.get(session);
    if (!entry) {
      const made: Entry = { events: [], seq: 0, chain: Promise.resolve(), dirty: false };
      made.chain = load(session).then(
        (events) => void made.events.unshift(...events),
        (e: unknown) => log.warn({ session, err: errorMessage(e) }, 'web chat display log not readable'),
      );
      entries.set(session, (entry = made));
    }
    return entry;
  };

  return {
    add(session, seq, event) {
      const entry = entryOf(session);
      entry.chain = entry.chain.then(() => {
        foldShown(entry.events, event, max);
        entry.seq = seq;
        write(session, entry);
      });
    },
    async read(session) {
      const entry = entryOf(session);
      await entry.chain;
      return { events: entry.events.map((e) => ({ ...e })), seq: entry.seq };
    },
    async flush() {
      for (const entry of entries.values()) {
        await entry.chain;
        await entry.writing;
      }
    },
  };
}
