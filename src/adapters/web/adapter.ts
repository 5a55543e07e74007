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
import type { Express, Request } from 'express';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import { RUN_ERROR_PREFIX } from '../../core/message.ts';
import { checkButtonIds } from '../button-ids.ts';
import { ButtonMemory } from '../button-memory.ts';
import { AdapterApiError, AdapterError, alreadyStarted } from '../errors.ts';
import type {
  AdapterCapabilities,
  Button,
  ChannelAdapter,
  CommandSpec,
  InboundSink,
  OutboundTarget,
} from '../types.ts';
import { createDisplayLog, type DisplaySource, migrateDisplayFiles } from './display-log.ts';
import { createEventHub } from './events.ts';
import { createWebFiles, type WebFileRetention } from './files.ts';
import { httpGuard, type Viewer } from './http-guard.ts';
import { WEB_ID } from './normalize.ts';
import type { PageBoot } from './page.ts';
import { attachFileRoutes, fileRef } from './routes-files.ts';
import { attachInboundRoutes } from './routes-inbound.ts';
import { attachPageRoutes } from './routes-page.ts';
import { attachReadRoutes } from './routes-read.ts';
import { createSignIn, DEFAULT_SESSION_DAYS, type WebSessionSource } from './sign-in.ts';
import { type ConversationSource, clip } from './transcript.ts';

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
  /** Where what each session showed is kept (the store's `webDisplay`): the page draws it again after a reload. */
  display?: DisplaySource;
  /** Where older versions kept it (`<dataDir>/web-display`): moved into `display` at start. */
  legacyDisplayDir?: string;
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

const SESSION = WEB_ID;
/** Messages whose buttons are remembered for presses (the oldest are forgotten first). */
const MAX_BUTTON_MESSAGES = 5000;

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
  const maxUpload = opts.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  const display = opts.display ? createDisplayLog(opts.display, log) : undefined;
  const hub = createEventHub(opts.backlog ?? 200, display);
  const publish = hub.publish;
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
  const bootOf = (owner: string, access: string, viewer: Viewer): PageBoot => ({
    TOKEN: apiToken,
    ACCESS: access,
    OWNER: owner,
    IDENTITY: viewer.identity ?? '',
    commands,
    maxUploadBytes: files ? maxUpload : 0,
    history: Boolean(opts.conversations || display),
  });

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
      // Records an older version kept as files go into the store once (a failure leaves them for the next start).
      if (opts.display && opts.legacyDisplayDir)
        await migrateDisplayFiles(opts.legacyDisplayDir, opts.display, log).catch((e: unknown) =>
          log.warn(
            { err: errorMessage(e) },
            'web chat display files not moved into the store; tried again at next start',
          ),
        );
    },
    async stop() {
      sink = undefined;
      clearInterval(sweeper);
      hub.close();
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
      hub.broadcast({ type: 'commands', commands });
    },
    async answerPress(press, text) {
      if (!SESSION.test(press.chatId)) return;
      publish(press.chatId, { type: 'note', text });
    },
    routes: () => [],
    identity: () => ({ id: 'web', name: 'boxbot' }),
    attach(app, base = '') {
      attachPageRoutes(app, base, {
        guard,
        signIn,
        anyHost: opts.anyHost ?? false,
        sessionDays: opts.sessionDays,
        secureCookies: opts.secureCookies ?? false,
        bootOf,
      });
      attachReadRoutes(app, base, { guard, hub, display, conversations: opts.conversations, log });
      attachFileRoutes(app, base, { guard, files, maxUpload });
      attachInboundRoutes(app, base, {
        guard,
        signIn,
        hub,
        display,
        files,
        maxUpload,
        buttons,
        sink: () => sink,
        log,
      });
    },
  };
  return adapter;
}
