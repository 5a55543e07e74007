// The built-in web chat: a page served by the gateway's HTTP server, messages in by POST,
// answers out by Server-Sent Events (sends, streamed edits, typing, tool activity, files,
// buttons). Each tab keeps a session id; its conversation key is `web:<sessionId>`. A
// per-process token guards the API (the page fetches a fresh one after a restart), and only
// loopback Host headers are served (no DNS rebinding). Sessions belong to a browser: the page's
// first load sets an HttpOnly cookie holding a random browser secret, and a session id starts
// with the digest of that secret (`<owner>-<tab>`), so a request whose cookie does not own the
// session is refused (403) even with the page token, and ownership survives restarts: the stored
// history, the conversation list, uploads and downloads are all checked against it.
import { randomBytes } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import express from 'express';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import { RUN_ERROR_PREFIX } from '../../core/message.ts';
import { checkButtonIds } from '../button-ids.ts';
import { ButtonMemory } from '../button-memory.ts';
import { AdapterApiError, AdapterError, alreadyStarted } from '../errors.ts';
import type {
  AdapterCapabilities,
  Attachment,
  AttachmentKind,
  Button,
  ChannelAdapter,
  CommandSpec,
  InboundSink,
  OutboundTarget,
} from '../types.ts';
import { webAsset } from './assets.ts';
import { createDisplayLog } from './display-log.ts';
import { createWebFiles, type WebFileMeta, type WebFileRetention, WebQuotaError } from './files.ts';
import {
  BROWSER_COOKIE,
  browserSecretOf,
  httpGuard,
  isLoopbackHostHeader,
  sessionOwner,
  type Viewer,
} from './http-guard.ts';
import { normalizeWebMessage, normalizeWebPress, SESSION_RULE, WEB_ID } from './normalize.ts';
import { chatPage } from './page.ts';
import { MAX_QUERY, type SearchedMessage, searchableTexts, searchMessages } from './search.ts';
import { createSignIn, DEFAULT_SESSION_DAYS, type WebSessionSource } from './sign-in.ts';
import { type ConversationSource, clip, sessionsOf, transcriptOf } from './transcript.ts';

export { BROWSER_COOKIE, isLoopbackHostHeader, sessionOwner } from './http-guard.ts';

/** The web chat: streamed by edits every 100 ms, typing shown, long answers kept whole. */
export const WEB_CAPABILITIES: AdapterCapabilities = Object.freeze({
  edit: true,
  typing: true,
  threads: false,
  maxTextLength: 20_000,
  editIntervalMs: 100,
  typingIntervalMs: 3000,
});

/** The default cap of one uploaded file and of one message's files together. */
export const DEFAULT_MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** Options of the web chat adapter. */
export interface WebAdapterOptions {
  logger?: Logger;
  /** When the server listens beyond loopback, the page and API need this token (BOXBOT_ADMIN_TOKEN). */
  accessToken?: string;
  /** Serve any Host header (only when the server is not on loopback and accessToken is set). */
  anyHost?: boolean;
  /** Messages kept per session for reconnecting tabs. */
  backlog?: number;
  /** Stored conversations (the store's): restores a tab's history after a restart and lists the browser's chats. */
  conversations?: ConversationSource;
  /** Where what each session showed is kept (a folder in the data dir): the page draws it again after a reload. */
  displayDir?: string;
  /** Where uploads and sent files are kept (a folder in the data dir); without it files are refused. */
  filesDir?: string;
  /** Largest upload, per file and per message together (default 20 MB). */
  maxUploadBytes?: number;
  /** How long files are kept and each browser's upload quota (defaults: DEFAULT_WEB_FILE_RETENTION). */
  fileRetention?: Partial<WebFileRetention>;
  /** How often expired files are swept (default hourly; also once at start). */
  sweepEveryMs?: number;
  /** Sign-in links and sessions (the store's `webSessions`); without it nobody can sign in. */
  sessions?: WebSessionSource;
  /** Life of a session and of the local browser's cookie, in days (default 30). */
  sessionDays?: number;
  /** Cookies marked Secure (the public URL is https). */
  secureCookies?: boolean;
  /** The clock (tests). */
  now?: () => number;
}

/** The web chat adapter, plus `attach` to mount its routes on the gateway's express app. */
export interface WebAdapter extends ChannelAdapter {
  attach(app: Express, basePath?: string): void;
  /** The per-process API token the page carries (tests use it). */
  readonly apiToken: string;
}

type FileRef = { id: string; name: string; size: number; mimeType: string };
type WebEvent =
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
  | { type: 'commands'; commands: CommandSpec[] }
  | { type: 'typing' };

interface Session {
  clients: Set<Response>;
  backlog: { seq: number; event: WebEvent }[];
  seq: number;
}

const SESSION = WEB_ID;
/** `/web logout`, as typed in the web chat. */
const LOGOUT = /^\/web(?:@\S+)?\s+logout\s*$/i;
/** The note a message the gateway did not take gets (on the page, and in the session's record). */
const NOT_ACCEPTED = 'Not sent: not accepted, try again';
/** Messages whose buttons are remembered for presses (the oldest are forgotten first). */
const MAX_BUTTON_MESSAGES = 5000;

const kindOf = (mimeType: string): AttachmentKind =>
  mimeType.startsWith('image/')
    ? 'image'
    : mimeType.startsWith('audio/')
      ? 'audio'
      : mimeType.startsWith('video/')
        ? 'video'
        : 'document';
/** Image types the page previews inline (raster only: an SVG is a document that can run script). */
const INLINE_IMAGE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
const fileRef = (m: WebFileMeta): FileRef => ({ id: m.id, name: m.name, size: m.size, mimeType: m.mimeType });

/** Creates the web chat adapter. */
export function createWebAdapter(opts: WebAdapterOptions = {}): WebAdapter {
  const log = (opts.logger ?? silentLogger).child({ scope: 'adapter:web' });
  const apiToken = randomBytes(24).toString('base64url');
  const signIn = opts.sessions
    ? createSignIn({
        store: opts.sessions,
        sessionDays: opts.sessionDays ?? DEFAULT_SESSION_DAYS,
        secure: opts.secureCookies ?? false,
        now: opts.now ?? Date.now,
      })
    : undefined;
  const guard = httpGuard({
    apiToken,
    ...(signIn ? { sessionOf: (req: Request) => signIn.sessionOf(req) } : {}),
    ...(opts.accessToken ? { accessToken: opts.accessToken } : {}),
    ...(opts.anyHost ? { anyHost: true } : {}),
  });
  const sessions = new Map<string, Session>();
  const backlogSize = opts.backlog ?? 200;
  const maxUpload = opts.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  const display = opts.displayDir ? createDisplayLog(opts.displayDir, log) : undefined;
  const files = opts.filesDir ? createWebFiles(opts.filesDir, opts.fileRetention, opts.now) : undefined;
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () =>
    void files
      ?.sweep()
      .then((n) => n && log.info({ removed: n }, 'expired web chat files removed'))
      .catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'web chat files not swept'));
  // The buttons under each message the bot sent, by session and message id: a press is accepted
  // only for a button shown under a message of the pressing session.
  const buttons = new ButtonMemory(MAX_BUTTON_MESSAGES);
  let commands: CommandSpec[] = [];
  let sink: InboundSink | undefined;
  // Message ids go on from where a previous process left off (milliseconds × 1000): an answer
  // resumed after a restart edits its old preview's id, which must not be a new message's.
  let nextId = Date.now() * 1000;

  const session = (id: string): Session => {
    let s = sessions.get(id);
    if (!s) sessions.set(id, (s = { clients: new Set(), backlog: [], seq: 0 }));
    return s;
  };
  const write = (res: Response, seq: number | undefined, event: WebEvent) =>
    res.write(`${seq === undefined ? '' : `id: ${seq}\n`}data: ${JSON.stringify(event)}\n\n`);
  const publish = (sessionId: string, event: WebEvent) => {
    const s = session(sessionId);
    const seq = ++s.seq;
    if (event.type !== 'typing') {
      s.backlog.push({ seq, event });
      if (s.backlog.length > backlogSize) s.backlog.splice(0, s.backlog.length - backlogSize);
      if (event.type !== 'commands') display?.add(sessionId, seq, event);
    }
    for (const res of s.clients) write(res, seq, event);
  };
  const sessionOf = (target: OutboundTarget) => {
    if (!SESSION.test(target.chatId))
      throw new AdapterApiError('web', 400, `bad web session id ${JSON.stringify(target.chatId)}`);
    return target.chatId;
  };
  const rememberButtons = (sessionId: string, messageId: string, list: Button[] | undefined) => {
    if (list !== undefined) buttons.set(sessionId, messageId, list);
  };
  // Which user message an event answers: a page that drew that turn from the stored history skips it.
  const answering = (target: OutboundTarget) => (target.replyToMessageId ? { for: target.replyToMessageId } : {});
  // A failed run's answer (a model error, naming the provider and what failed) is drawn apart.
  const failed = (text: string) => (text.startsWith(RUN_ERROR_PREFIX) ? { error: true } : {});
  const cleanButtons = (list: Button[] | undefined): Button[] | undefined =>
    checkButtonIds('web', list)?.map((b) => ({ id: b.id, label: b.label, ...(b.style ? { style: b.style } : {}) }));

  /** The page's settings: the token it needs now, its owner prefix, the commands and the upload cap. */
  const bootOf = (owner: string, access: string, viewer: Viewer) => ({
    TOKEN: apiToken,
    ACCESS: access,
    OWNER: owner,
    IDENTITY: viewer.identity ?? '',
    commands,
    maxUploadBytes: files ? maxUpload : 0,
    history: Boolean(opts.conversations || display),
  });

  /** Reads a request body up to `limit` bytes; undefined (after a 413 naming the limit) when it is larger. */
  const readCapped = async (req: Request, res: Response, limit: number): Promise<Buffer | undefined> => {
    const refuse = () =>
      void res.status(413).json({ error: `File too large: the limit is ${mb(limit)} per file.`, limit });
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      refuse();
      req.resume();
      return undefined;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        refuse();
        req.resume();
        return undefined;
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  };

  /** The `session` query of a request, when well-formed and the caller's own; else answered (400/403) and undefined. */
  const ownedSession = (req: Request, res: Response, viewer: Viewer): string | undefined => {
    const id = String(req.query.session ?? '');
    if (!SESSION.test(id)) return void res.status(400).json({ error: SESSION_RULE });
    return guard.owns(viewer, res, id) ? id : undefined;
  };

  /** The message's file ids checked against this session's uploads and the cap, then described. */
  const describeFiles = async (
    sessionId: string,
    attachments: Attachment[],
  ): Promise<{ ok: Attachment[]; refs: FileRef[] } | { error: string; status: number }> => {
    if (!attachments.length) return { ok: [], refs: [] };
    if (!files) return { error: 'this web chat takes no files (no files folder is configured)', status: 400 };
    const ok: Attachment[] = [];
    const refs: FileRef[] = [];
    let total = 0;
    for (const a of attachments) {
      const fileId = a.id.slice(a.id.lastIndexOf(':') + 1);
      const meta = await files.meta(sessionId, fileId);
      if (meta?.origin !== 'upload') return { error: `no uploaded file ${fileId} in this chat`, status: 400 };
      total += meta.size;
      ok.push({ id: a.id, kind: kindOf(meta.mimeType), name: meta.name, mimeType: meta.mimeType, size: meta.size });
      refs.push(fileRef(meta));
    }
    if (total > maxUpload) return { error: `Files too large: the limit is ${mb(maxUpload)} per message.`, status: 413 };
    return { ok, refs };
  };

  const adapter: WebAdapter = {
    platform: 'web',
    capabilities: WEB_CAPABILITIES,
    apiToken,
    async start(s) {
      if (sink) throw alreadyStarted('web');
      sink = s;
      // What expired while the gateway was down goes now, the rest as it expires.
      if (files) {
        sweep();
        sweeper = setInterval(sweep, opts.sweepEveryMs ?? 3600_000).unref();
      }
    },
    async stop() {
      sink = undefined;
      clearInterval(sweeper);
      for (const s of sessions.values()) for (const res of s.clients) res.end();
      await display?.flush();
    },
    async send(target, text, o) {
      const sessionId = sessionOf(target);
      const id = String(nextId++);
      const list = cleanButtons(o?.buttons);
      rememberButtons(sessionId, id, list);
      publish(sessionId, {
        type: 'message',
        id,
        text,
        ...answering(target),
        ...failed(text),
        ...(list?.length ? { buttons: list } : {}),
      });
      return { messageId: id };
    },
    async edit(target, messageId, text, o) {
      const sessionId = sessionOf(target);
      const list = cleanButtons(o?.buttons);
      rememberButtons(sessionId, messageId, list);
      publish(sessionId, {
        type: 'edit',
        id: messageId,
        text,
        ...answering(target),
        error: text.startsWith(RUN_ERROR_PREFIX),
        ...(list ? { buttons: list } : {}),
      });
    },
    async typing(target) {
      publish(sessionOf(target), { type: 'typing' });
    },
    showActivity(target, activity) {
      if (!SESSION.test(target.chatId)) return;
      publish(target.chatId, {
        type: 'activity',
        kind: activity.kind,
        text: activity.text,
        // Shown to the session's own user, redacted and capped as the stored transcript is.
        ...(activity.detail !== undefined ? { detail: clip(activity.detail, activity.detailChars) } : {}),
        ...(activity.callId !== undefined ? { call: activity.callId } : {}),
        ...(target.replyToMessageId ? { for: target.replyToMessageId } : {}),
      });
    },
    async fetchAttachment(attachment, o) {
      const at = attachment.id.lastIndexOf(':');
      const sessionId = attachment.id.slice(0, at);
      const fileId = attachment.id.slice(at + 1);
      if (!files || at < 0 || !SESSION.test(sessionId))
        throw new AdapterError('web', 'not-found', `no web chat file ${JSON.stringify(attachment.id)}`);
      const meta = await files.meta(sessionId, fileId);
      if (!meta) throw new AdapterError('web', 'not-found', `no web chat file ${JSON.stringify(attachment.id)}`);
      if (meta.size > o.maxBytes)
        throw new AdapterError('web', 'too-large', `the file is ${meta.size} bytes, more than ${o.maxBytes}`);
      o.signal?.throwIfAborted();
      return { bytes: await files.read(sessionId, fileId), name: meta.name, mimeType: meta.mimeType };
    },
    async sendFile(target, file) {
      const sessionId = sessionOf(target);
      if (!files) throw new AdapterApiError('web', 400, 'this web chat keeps no files (no files folder is configured)');
      const meta = await files.save(sessionId, file.bytes, {
        name: file.name,
        mimeType: file.mimeType,
        origin: 'sent',
      });
      const id = String(nextId++);
      publish(sessionId, { type: 'message', id, text: file.caption ?? '', ...answering(target), file: fileRef(meta) });
      return { messageId: id };
    },
    async setCommands(list) {
      commands = list.map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.argument ? { argument: { ...c.argument } } : {}),
      }));
      for (const s of sessions.values())
        for (const res of s.clients) write(res, undefined, { type: 'commands', commands });
    },
    async answerPress(press, text) {
      if (!SESSION.test(press.chatId)) return;
      publish(press.chatId, { type: 'note', text });
    },
    routes: () => [],
    identity: () => ({ id: 'web', name: 'boxbot' }),
    attach(app, base = '') {
      // Sign-in links work beyond loopback without the access token: they are the way in.
      const hostOk = (req: Request, res: Response) => {
        if (opts.anyHost || isLoopbackHostHeader(req.headers.host)) return true;
        res.status(403).type('text/plain').send('web chat: refused Host: open it as http://127.0.0.1:<port>/');
        return false;
      };
      app.get(`${base}/login/:token`, (req, res) => {
        if (!hostOk(req, res)) return;
        if (!signIn) return void res.status(404).type('text/plain').send('sign-in is off (no store)');
        signIn.loginPage(req, res);
      });
      app.post(`${base}/login/:token`, async (req, res) => {
        if (!hostOk(req, res)) return;
        if (!signIn) return void res.status(404).type('text/plain').send('sign-in is off (no store)');
        await signIn.login(req, res, `${base}/`);
      });
      app.post(`${base}/chat/logout`, async (req, res) => {
        if (!(await guard.check(req, res, { apiToken: true }))) return;
        res.json({ loggedOut: signIn ? await signIn.logout(req, res) : false });
      });
      app.get(`${base}/`, async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: false, page: true });
        if (!viewer) return;
        res.set(
          'Content-Security-Policy',
          "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src " +
            "'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        );
        res.set('X-Content-Type-Options', 'nosniff');
        // A browser without a (valid) cookie gets a new secret; its sessions are its own from now on.
        // The cookie lasts (Max-Age, renewed at each visit) so its conversations survive a browser restart.
        const secret = browserSecretOf(req) ?? randomBytes(24).toString('base64url');
        const maxAge = Math.round((opts.sessionDays ?? DEFAULT_SESSION_DAYS) * 24 * 3600);
        res.append(
          'Set-Cookie',
          `${BROWSER_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}` +
            (opts.secureCookies ? '; Secure' : ''),
        );
        const local = viewer.identity ? viewer : { owner: sessionOwner(secret) };
        res.set('Cache-Control', 'no-store');
        res.type('html').send(chatPage(bootOf(local.owner!, String(req.query.access ?? ''), local)));
      });
      app.get(`${base}/chat/assets/:name`, async (req, res) => {
        if (!(await guard.check(req, res, { apiToken: false }))) return;
        const asset = webAsset(String(req.params.name));
        if (!asset) return void res.status(404).type('text/plain').send('no such asset');
        res.set('X-Content-Type-Options', 'nosniff');
        res.set('Cache-Control', 'no-cache');
        res.type(asset.type).send(asset.body);
      });
      app.get(`${base}/favicon.ico`, async (req, res) => {
        if (!(await guard.check(req, res, { apiToken: false }))) return;
        res.type('image/svg+xml').send(webAsset('favicon.svg')!.body);
      });
      // The page's settings again, for a tab open across a restart (the page token is per process).
      app.get(`${base}/chat/boot`, async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: false });
        if (!viewer) return;
        const owner = guard.ownerOf(viewer, res);
        if (!owner) return;
        res.set('Cache-Control', 'no-store');
        res.json(bootOf(owner, String(req.query.access ?? ''), viewer));
      });
      app.get(`${base}/chat/events`, async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: true });
        if (!viewer) return;
        const id = ownedSession(req, res, viewer);
        if (!id) return;
        res.writeHead(200, {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'no-store',
          Connection: 'keep-alive',
          'X-Accel-Buffering': 'no',
        });
        // A short retry: a tab open across a gateway restart comes back within a second or so.
        res.write(': connected\n\nretry: 1000\n\n');
        const s = session(id);
        const after = Number(req.headers['last-event-id'] ?? req.query.after ?? 0) || 0;
        for (const b of s.backlog) if (b.seq > after) write(res, b.seq, b.event);
        s.clients.add(res);
        const ping = setInterval(() => res.write(': ping\n\n'), 25_000);
        req.on('close', () => {
          clearInterval(ping);
          s.clients.delete(res);
        });
      });
      // The session's stored transcript: after a restart the in-memory backlog is gone. The page
      // draws it, then replays this process's backlog, skipping the turns the transcript holds
      // (events name the user message they answer), so a turn still running shows up too.
      app.get(`${base}/chat/history`, async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: true });
        if (!viewer) return;
        const id = ownedSession(req, res, viewer);
        if (!id) return;
        res.set('Cache-Control', 'no-store');
        try {
          // What this session showed, when it was recorded; else (older chats) the stored conversation.
          const page = await display?.read(id);
          if (page?.events.length) return void res.json(page);
          if (!opts.conversations) return void res.json({ entries: [] });
          const c = await opts.conversations.get(`web:${id}`);
          res.json({ entries: transcriptOf(c?.messages ?? []) });
        } catch (e) {
          log.warn({ err: errorMessage(e) }, 'web chat history not readable');
          res.json({ entries: [], note: 'The saved history of this chat could not be read.' });
        }
      });
      app.get(`${base}/chat/sessions`, async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: true });
        if (!viewer) return;
        const owner = guard.ownerOf(viewer, res);
        if (!owner) return;
        res.set('Cache-Control', 'no-store');
        if (!opts.conversations) return void res.json({ sessions: [] });
        try {
          res.json({ sessions: await sessionsOf(opts.conversations, owner) });
        } catch (e) {
          log.warn({ err: errorMessage(e) }, 'web chat list not readable');
          res.status(503).json({ error: 'the conversation list could not be read' });
        }
      });
      // Search across this user's own chats (the same ones the list shows), newest 200 at most.
      app.get(`${base}/chat/search`, async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: true });
        if (!viewer) return;
        const owner = guard.ownerOf(viewer, res);
        if (!owner) return;
        res.set('Cache-Control', 'no-store');
        const q = String(req.query.q ?? '');
        if (q.length > MAX_QUERY) return void res.status(400).json({ error: `q: at most ${MAX_QUERY} characters` });
        if (!opts.conversations) return void res.json({ hits: [] });
        try {
          const messages: SearchedMessage[] = [];
          for (const s of await sessionsOf(opts.conversations, owner, 200)) {
            let texts = searchableTexts((await display?.read(s.session))?.events ?? []);
            if (!texts.length) {
              const c = await opts.conversations.get(`web:${s.session}`);
              texts = transcriptOf(c?.messages ?? []).flatMap((e) => (e.role === 'tools' ? [] : [e.text]));
            }
            for (const text of texts) messages.push({ session: s.session, title: s.title, text });
          }
          res.json({ hits: searchMessages(messages, q) });
        } catch (e) {
          log.warn({ err: errorMessage(e) }, 'web chat search failed');
          res.status(503).json({ error: 'the conversations could not be searched' });
        }
      });
      app.post(`${base}/chat/upload`, async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: true });
        if (!viewer) return;
        const id = ownedSession(req, res, viewer);
        if (!id) return;
        if (!files) return void res.status(400).json({ error: 'this web chat takes no files' });
        const bytes = await readCapped(req, res, maxUpload);
        if (!bytes) return;
        const mimeType = String(req.headers['content-type'] ?? 'application/octet-stream')
          .split(';')[0]!
          .trim();
        try {
          const meta = await files.save(id, bytes, {
            name: String(req.query.name ?? 'file'),
            mimeType: /^[\w.+-]+\/[\w.+-]+$/.test(mimeType) ? mimeType : 'application/octet-stream',
            origin: 'upload',
          });
          res.status(201).json(fileRef(meta));
        } catch (e) {
          if (!(e instanceof WebQuotaError)) throw e;
          res.status(413).json({
            error:
              `Upload refused: your uploads here already hold ${mb(e.usedBytes)} of ${mb(e.quotaBytes)}. ` +
              'Uploads not sent with a message are deleted after a day.',
            quota: e.quotaBytes,
          });
        }
      });
      // Downloads need the owning cookie (SameSite=Strict: never sent from another site) but not the
      // page token, so a link keeps working across restarts. An attachment, never rendered, except
      // a raster image's inline preview.
      app.get(`${base}/chat/files/:id`, async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: false });
        if (!viewer) return;
        const id = ownedSession(req, res, viewer);
        if (!id) return;
        const meta = files ? await files.meta(id, String(req.params.id)) : undefined;
        if (!files || !meta) return void res.status(404).json({ error: 'no such file in this chat' });
        // `inline=1` on a raster image (never SVG, which can carry script) is the page's preview of it.
        const inline = req.query.inline === '1' && INLINE_IMAGE.has(meta.mimeType);
        const disposition = inline ? 'inline' : 'attachment';
        res.set({
          'Content-Type': inline ? meta.mimeType : 'application/octet-stream',
          'Content-Disposition': `${disposition}; filename*=UTF-8''${encodeURIComponent(meta.name)}`,
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; sandbox",
          'Cache-Control': 'no-store',
        });
        res.send(Buffer.from(await files.read(id, meta.id)));
      });
      app.post(`${base}/chat/messages`, express.json({ limit: '256kb' }), async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: true });
        if (!viewer) return;
        const result = normalizeWebMessage(req.body, new Date());
        if (result.kind !== 'message') return void res.status(400).json({ error: result.reason });
        const owner = guard.owns(viewer, res, result.message.chatId);
        if (!owner) return;
        // `/web logout` ends this browser's session here: only the web chat knows which one it is.
        if (viewer.sessionId && LOGOUT.test(result.message.text) && signIn) {
          await signIn.logout(req, res);
          return void res.status(200).json({ loggedOut: true });
        }
        // The speaker is the signed-in user, else the browser that owns the session.
        let msg = { ...result.message, userId: owner, ...(viewer.identity ? { signedInAs: viewer.identity } : {}) };
        if (!sink) return void res.status(503).json({ error: 'the web chat is not running' });
        const described = await describeFiles(msg.chatId, msg.attachments);
        if ('error' in described) return void res.status(described.status).json({ error: described.error });
        msg = { ...msg, attachments: described.ok };
        try {
          // Sent with a message: kept for the full retention from now on (before the host reads them).
          await files?.attach(
            msg.chatId,
            described.refs.map((r) => r.id),
          );
          // Echoed so other tabs and a reloaded page show the user's side too; before the sink, as
          // the page drew it, so a command answered at once (/stop) comes after it in the history.
          publish(msg.chatId, {
            type: 'user',
            id: msg.messageId!,
            text: msg.text,
            ...(described.refs.length ? { files: described.refs } : {}),
          });
          await sink(msg);
          res.status(202).json({ accepted: true });
        } catch (e) {
          log.error({ err: errorMessage(e) }, 'web message not accepted');
          // The echo above is in the record: so is the refusal, so a reload does not show it as sent.
          publish(msg.chatId, { type: 'note', text: NOT_ACCEPTED });
          res.status(503).json({ error: 'not accepted, try again', noted: true });
        }
      });
      app.post(`${base}/chat/press`, express.json({ limit: '16kb' }), async (req, res) => {
        const viewer = await guard.check(req, res, { apiToken: true });
        if (!viewer) return;
        const result = normalizeWebPress(req.body, randomBytes(9).toString('base64url'), new Date());
        if (result.kind !== 'message') return void res.status(400).json({ error: result.reason });
        const owner = guard.owns(viewer, res, result.message.chatId);
        if (!owner) return;
        // Whoever decides an approval here is the session's user (approvers: "requester").
        const msg = { ...result.message, userId: owner, ...(viewer.identity ? { signedInAs: viewer.identity } : {}) };
        const shown = buttons.get(msg.chatId, msg.action!.messageId!);
        if (!shown?.some((b) => b.id === msg.action!.id))
          return void res.status(404).json({ error: 'this button is no longer offered' });
        if (!sink) return void res.status(503).json({ error: 'the web chat is not running' });
        try {
          await sink(msg);
          res.status(202).json({ accepted: true });
        } catch (e) {
          log.error({ err: errorMessage(e) }, 'web button press not accepted');
          res.status(503).json({ error: 'not accepted, try again' });
        }
      });
    },
  };
  return adapter;
}
