// What the web chat shows, as events: their shapes, and the hub that numbers them per session,
// keeps a short backlog for reconnecting tabs, records them in the display log and streams them
// to each open tab as Server-Sent Events.
import type { Request, Response } from 'express';
import type { Button, CommandSpec } from '../types.ts';
import type { DisplayLog } from './display-log.ts';

/** A file as the page links it. */
export type FileRef = { id: string; name: string; size: number; mimeType: string };

/** One event the page draws. */
export type WebEvent =
  | {
      type: 'message' | 'edit';
      id: string;
      for?: string;
      text: string;
      buttons?: Button[];
      file?: FileRef;
      /** A failed run's answer: drawn as an error with Retry. */
      error?: boolean;
    }
  | { type: 'user'; id: string; text: string; files?: FileRef[] }
  /** `detail`: the input at the start, the output at the end (redacted, capped; the page shows it as text). */
  | { type: 'activity'; for?: string; kind: 'tool-start' | 'tool-end'; text: string; detail?: string; call?: string }
  | { type: 'note'; text: string }
  /** The turn the user message `of` started is replaced (Edit, Regenerate): its message and answers go. */
  | { type: 'replace'; of: string }
  | { type: 'commands'; commands: CommandSpec[] }
  | { type: 'typing' };

interface Session {
  clients: Set<Response>;
  backlog: { seq: number; event: WebEvent }[];
  seq: number;
}

/** The sessions' event streams of one adapter. */
export interface EventHub {
  /** Numbers `event`, keeps it (but typing) in the backlog and the display log, and sends it to the session's tabs. */
  publish(sessionId: string, event: WebEvent): void;
  /** Sends `event` to every open tab, unrecorded (the command list). */
  broadcast(event: WebEvent): void;
  /** Answers `req` with the session's stream: the backlog after the tab's last event, then what comes. */
  stream(req: Request, res: Response, sessionId: string): void;
  /** Ends every open stream. */
  close(): void;
}

/** A hub keeping `backlog` events per session, recording to `display` when given. */
export function createEventHub(backlog: number, display: DisplayLog | undefined): EventHub {
  const sessions = new Map<string, Session>();
  const session = (id: string): Session => {
    let s = sessions.get(id);
    if (!s) sessions.set(id, (s = { clients: new Set(), backlog: [], seq: 0 }));
    return s;
  };
  const write = (res: Response, seq: number | undefined, event: WebEvent) =>
    res.write(`${seq === undefined ? '' : `id: ${seq}\n`}data: ${JSON.stringify(event)}\n\n`);
  return {
    publish(sessionId, event) {
      const s = session(sessionId);
      const seq = ++s.seq;
      if (event.type !== 'typing') {
        s.backlog.push({ seq, event });
        if (s.backlog.length > backlog) s.backlog.splice(0, s.backlog.length - backlog);
        if (event.type !== 'commands') display?.add(sessionId, seq, event);
      }
      for (const res of s.clients) write(res, seq, event);
    },
    broadcast(event) {
      for (const s of sessions.values()) for (const res of s.clients) write(res, undefined, event);
    },
    stream(req, res, sessionId) {
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      // A short retry: a tab open across a gateway restart comes back within a second or so.
      res.write(': connected\n\nretry: 1000\n\n');
      const s = session(sessionId);
      const after = Number(req.headers['last-event-id'] ?? req.query.after ?? 0) || 0;
      for (const b of s.backlog) if (b.seq > after) write(res, b.seq, b.event);
      s.clients.add(res);
      const ping = setInterval(() => res.write(': ping\n\n'), 25_000);
      req.on('close', () => {
        clearInterval(ping);
        s.clients.delete(res);
      });
    },
    close() {
      for (const s of sessions.values()) for (const res of s.clients) res.end();
    },
  };
}
