// End-to-end harness: a whole boxbot (startBoxbot, as `npm start` runs it) in a temp folder,
// wired to the LLM emulator over HTTP, plus helpers to read the web chat's event stream.

import { readEventStream, waitUntil } from '../helpers.ts';
import { bootBoxbot, type RestartableBoxbot } from './boot.ts';

/** A running boxbot with its emulator and temp folder. */
export type E2E = Pick<RestartableBoxbot, 'app' | 'llm' | 'dir' | 'logs' | 'close'>;

/**
 * Starts boxbot with `config` (merged over a temp dataDir, port 0, an OpenAI model on the emulator) and `env`; compiled
 * tools come from the shared warm cache.
 */
export function startE2E(config: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<E2E> {
  return bootBoxbot(config, env);
}

/** A file in the web chat as the page lists it (an upload, or a file the bot sent). */
export interface WebChatFile {
  id: string;
  name: string;
  size: number;
  mimeType: string;
}

/** Events of one web chat session, read from its SSE stream. */
export class WebChatClient {
  readonly events: { type: string; id?: string; text?: string; file?: WebChatFile }[] = [];
  private controller = new AbortController();
  private constructor(
    readonly base: string,
    readonly token: string,
    readonly session: string,
    /** The browser cookie the page set (sessions belong to it). */
    readonly cookie: string,
  ) {}

  /**
   * Loads the page (for its token and browser cookie) and opens the event stream of a session of
   * this browser; with `browserCookie`, as the browser that has it (the same user, a new tab).
   */
  static async open(
    base: string,
    tab = `s${Math.random().toString(36).slice(2, 12)}`,
    browserCookie?: string,
  ): Promise<WebChatClient> {
    const pageRes = await fetch(`${base}/`, browserCookie ? { headers: { cookie: browserCookie } } : {});
    const page = await pageRes.text();
    const token = /"TOKEN":"([^"]+)"/.exec(page)?.[1];
    const owner = /"OWNER":"([^"]+)"/.exec(page)?.[1];
    const cookie =
      browserCookie ??
      pageRes.headers
        .getSetCookie()
        .map((c) => c.split(';')[0]!)
        .join('; ');
    if (!token || !owner || !cookie) throw new Error('the page carries no token, owner or cookie');
    const session = `${owner}-${tab}`;
    const c = new WebChatClient(base, token, session, cookie);
    const res = await fetch(`${base}/chat/events?session=${session}&token=${encodeURIComponent(token)}`, {
      signal: c.controller.signal,
      headers: { cookie },
    });
    if (!res.ok || !res.body) throw new Error(`event stream: HTTP ${res.status}`);
    readEventStream(res.body, (data) => c.events.push(data as WebChatClient['events'][number]));
    return c;
  }

  /** Posts a message; resolves with the HTTP status. */
  async say(text: string, token = this.token): Promise<number> {
    const res = await fetch(`${this.base}/chat/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-boxbot-token': token, cookie: this.cookie },
      body: JSON.stringify({ session: this.session, text, id: `m${Math.random().toString(36).slice(2, 12)}` }),
    });
    await res.text();
    return res.status;
  }

  /** Uploads a file the way the page does (before the message naming it); resolves with the answer. */
  async upload(name: string, mimeType: string, bytes: Uint8Array): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${this.base}/chat/upload?session=${this.session}&name=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { 'content-type': mimeType, 'x-boxbot-token': this.token, cookie: this.cookie },
      body: Buffer.from(bytes),
    });
    return { status: res.status, body: await res.json() };
  }

  /** Posts a message carrying uploaded files (by id); resolves with the HTTP status. */
  async sayWithFiles(text: string, fileIds: string[]): Promise<number> {
    const res = await fetch(`${this.base}/chat/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-boxbot-token': this.token, cookie: this.cookie },
      body: JSON.stringify({
        session: this.session,
        text,
        id: `m${Math.random().toString(36).slice(2, 12)}`,
        attachments: fileIds,
      }),
    });
    await res.text();
    return res.status;
  }

  /** The files the bot sent to this session, in order, as the page links them. */
  botFiles(): WebChatFile[] {
    return this.events.flatMap((e) => (e.type === 'message' && e.file ? [e.file] : []));
  }

  /** Follows a file's download link with `cookie` (default: this browser's), from `session` (default: this one). */
  download(fileId: string, o: { cookie?: string; session?: string } = {}): Promise<Response> {
    const session = o.session ?? this.session;
    return fetch(`${this.base}/chat/files/${fileId}?session=${session}`, {
      headers: { cookie: o.cookie ?? this.cookie },
    });
  }

  /** The bot's messages as the page shows them (edits applied), in order. */
  messages(): string[] {
    const byId = new Map<string, string>();
    for (const e of this.events) if ((e.type === 'message' || e.type === 'edit') && e.id) byId.set(e.id, e.text ?? '');
    return [...byId.values()];
  }

  close(): void {
    this.controller.abort();
  }
}

/** Polls until `pred` holds; fails naming `what` after `ms`. */
export const until = (pred: () => boolean, what: string, ms = 20_000): Promise<void> => waitUntil(pred, what, ms);
