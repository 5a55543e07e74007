// A local Slack: the Web API, Socket Mode and signed HTTP event delivery on 127.0.0.1 port 0,
// so @slack/web-api and @slack/socket-mode run unmodified against it. Reused by the adapter
// tests, the gateway end-to-end tests and the gateway benchmark.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SlackFiles } from './files.ts';
import { type HttpDeliveryRecord, HttpEvents } from './http-events.ts';
import { blockActionsPayload, buttonsOf, slashCommandFields } from './interactivity.ts';
import { appMentionEvent, eventCallback, messageEvent, newEventId, type UserPost } from './payloads.ts';
import { type EnvelopeRecord, SocketLink } from './socket-link.ts';
import { WebApi } from './web-api.ts';
import { type SlackFile, type StoredMessage, Workspace, type WorkspaceIds } from './workspace.ts';

/** How the emulated workspace delivers events and how strict it is. */
export interface SlackEmulatorOptions {
  /** `socket` (Socket Mode) or `http` (signed POSTs to eventsUrl). Default socket. */
  delivery?: 'socket' | 'http';
  botToken?: string;
  appToken?: string;
  signingSecret?: string;
  /** HTTP mode: the app's request URL (also settable later with setEventsUrl). */
  eventsUrl?: string;
  /** Socket Mode: ack deadline before redelivery (Slack ~3000). */
  ackTimeoutMs?: number;
  /** Socket Mode: redeliveries of an unacked envelope (Slack 3). */
  maxRetries?: number;
  /**
   * Socket Mode: resend what a closed connection left unacknowledged at once (Slack waits for the ack timeout). Default
   * false.
   */
  redeliverOnClose?: boolean;
  /** HTTP: automatic redelivery delays after a failure (default none; Slack: 0, 60 s, 300 s). */
  httpRetryDelaysMs?: number[];
  /**
   * Subscribed to message.channels (a mention then arrives as both `message` and `app_mention`, as in Slack). Default
   * true.
   */
  channelMessages?: boolean;
  /** Deliver the bot's own posts and edits back as message events (as Slack does). Default false. */
  echoBotMessages?: boolean;
  ids?: Partial<WorkspaceIds>;
}

/** One slash command or button press as delivered (HTTP record or Socket Mode envelope). */
export interface InteractionDelivery {
  body: Record<string, unknown>;
  http?: HttpDeliveryRecord;
  socket?: EnvelopeRecord;
}

/** What one user post produced. */
export interface PostResult {
  ts: string;
  channel: string;
  /** Event ids delivered for it (message and/or app_mention). */
  eventIds: string[];
  /** HTTP mode: the deliveries (first attempt awaited). */
  http: HttpDeliveryRecord[];
  /** Socket mode: the envelopes. */
  socket: EnvelopeRecord[];
}

const DEFAULT_IDS: WorkspaceIds = {
  teamId: 'T0EMU0001',
  teamName: 'Emulated',
  appId: 'A0EMU0001',
  botUserId: 'U0BOT0001',
  botId: 'B0BOT0001',
  botName: 'boxbot',
};

/** A running emulated Slack. Create with `startSlackEmulator()`; `close()` when done. */
export class SlackEmulator {
  readonly workspace: Workspace;
  readonly api: WebApi;
  readonly link: SocketLink;
  readonly events: HttpEvents;
  /** Uploads, served at their url_private with the bot token. */
  readonly files: SlackFiles;
  readonly botToken: string;
  readonly appToken: string;
  readonly signingSecret: string;
  readonly delivery: 'socket' | 'http';
  private readonly channelMessages: boolean;
  private readonly echo: boolean;
  private server: Server | undefined;
  private port = 0;

  constructor(opts: SlackEmulatorOptions = {}) {
    this.workspace = new Workspace({ ...DEFAULT_IDS, ...opts.ids });
    this.botToken = opts.botToken ?? 'xoxb-0000000001-0000000002-emulatorbottoken';
    this.appToken = opts.appToken ?? 'xapp-1-A0EMU0001-0000000003-emulatorapptoken';
    this.signingSecret = opts.signingSecret ?? '8f742231b10e8888abcd99yyyzzz85a5';
    this.delivery = opts.delivery ?? 'socket';
    this.channelMessages = opts.channelMessages ?? true;
    this.echo = opts.echoBotMessages ?? false;
    this.api = new WebApi(
      this.workspace,
      { bot: this.botToken, app: this.appToken },
      {
        openConnection: () => this.link.ticketUrl(`ws://127.0.0.1:${this.port}`),
        onBotMessage: (m, kind) => this.echoBot(m, kind),
        uploadUrl: (fileId) => `http://127.0.0.1:${this.port}/upload/${fileId}`,
      },
    );
    this.link = new SocketLink({
      appId: this.workspace.ids.appId,
      ackTimeoutMs: opts.ackTimeoutMs ?? 3000,
      maxRetries: opts.maxRetries ?? 3,
      pingIntervalMs: 10_000,
      redeliverOnClose: opts.redeliverOnClose ?? false,
    });
    this.events = new HttpEvents({
      signingSecret: this.signingSecret,
      retryDelaysMs: opts.httpRetryDelaysMs ?? [],
      responseTimeoutMs: 3000,
    });
    if (opts.eventsUrl) this.events.url = opts.eventsUrl;
    this.files = new SlackFiles(() => `http://127.0.0.1:${this.port}`, this.workspace.ids.teamId, this.botToken);
  }

  /** Listens on 127.0.0.1, port 0. */
  async listen(): Promise<this> {
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'GET' && this.files.handles(path)) return this.files.serve(req, res, path);
      if (req.method === 'POST' || req.method === 'GET') {
        const m = /^\/api\/([A-Za-z0-9._]+)$/.exec(path);
        if (m) {
          this.api.handle(req, res, m[1]!).catch(() => res.writeHead(500).end());
          return;
        }
        const upload = /^\/upload\/([A-Z0-9]+)$/.exec(path);
        if (upload && req.method === 'POST') {
          const chunks: Buffer[] = [];
          req.on('data', (c: Buffer) => chunks.push(c));
          req.on('end', () => {
            const status = this.api.receiveUpload(upload[1]!, new Uint8Array(Buffer.concat(chunks)));
            const headers: Record<string, string> = { 'content-type': 'text/plain' };
            if (status === 429) headers['retry-after'] = '2';
            res.writeHead(status, headers).end(status === 200 ? `OK - ${Buffer.concat(chunks).length}` : 'failed');
          });
          return;
        }
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    server.on('upgrade', (req, socket, head) => this.link.upgrade(req, socket, head));
    // A deep accept backlog: benchmarks open many connections at once.
    await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** The Web API root to give the adapter (`slack.apiUrl`). */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api/`;
  }

  get ids(): WorkspaceIds {
    return this.workspace.ids;
  }

  /** HTTP mode: where events are posted (the gateway's `/webhooks/slack`). */
  setEventsUrl(url: string): void {
    this.events.url = url;
  }

  /**
   * A person (or another bot, with `botId`) posts. DMs (`channelType: 'im'`) arrive as `message`;
   * in channels a post mentioning the bot (`mention`: text gets `<@bot> ` in front) arrives as
   * `app_mention` and, if subscribed, also as `message`, exactly as Slack sends them.
   */
  async userSays(p: {
    channel: string;
    channelType?: UserPost['channelType'];
    user?: string;
    userName?: string;
    text: string;
    mention?: boolean;
    threadTs?: string;
    botId?: string;
    subtype?: string;
  }): Promise<PostResult> {
    const ids = this.workspace.ids;
    const channelType = p.channelType ?? (p.channel.startsWith('D') ? 'im' : 'channel');
    const user = p.user ?? 'U0USER0001';
    if (p.userName) this.workspace.addUser(user, p.userName);
    const text = p.mention ? `<@${ids.botUserId}> ${p.text}` : p.text;
    const post: UserPost = {
      channel: p.channel,
      channelType,
      user,
      text,
      ts: this.workspace.nextTs(),
      ...(p.threadTs ? { threadTs: p.threadTs } : {}),
      ...(p.botId ? { botId: p.botId } : {}),
      ...(p.subtype ? { subtype: p.subtype } : {}),
    };
    this.workspace.add({
      channel: p.channel,
      ts: post.ts,
      ...(p.threadTs ? { threadTs: p.threadTs } : {}),
      user,
      ...(p.botId ? { botId: p.botId } : {}),
      text,
      edits: 0,
    });

    const events: Record<string, unknown>[] = [];
    const mentioned = text.includes(`<@${ids.botUserId}>`);
    if (channelType === 'im' || this.channelMessages) events.push(messageEvent(ids, post));
    if (channelType !== 'im' && mentioned && !p.botId) events.push(appMentionEvent(ids, post));
    const result: PostResult = { ts: post.ts, channel: p.channel, eventIds: [], http: [], socket: [] };
    for (const event of events) {
      const body = eventCallback(ids, event);
      result.eventIds.push(body.event_id as string);
      await this.deliverBody(body, result);
    }
    return result;
  }

  /**
   * A person shares a file in a channel or DM (a `message` event with subtype `file_share`);
   * `voice` makes it a recorded audio clip (`slack_audio`).
   */
  async userSharesFile(p: {
    channel: string;
    name: string;
    mimetype: string;
    bytes: Uint8Array;
    text?: string;
    voice?: boolean;
    user?: string;
  }): Promise<void> {
    const ids = this.workspace.ids;
    const file = this.files.add({
      name: p.name,
      mimetype: p.mimetype,
      bytes: p.bytes,
      ...(p.voice ? { subtype: 'slack_audio' } : {}),
    });
    const post: UserPost = {
      channel: p.channel,
      channelType: p.channel.startsWith('D') ? 'im' : 'channel',
      user: p.user ?? 'U0USER0001',
      text: p.text ?? '',
      ts: this.workspace.nextTs(),
      subtype: 'file_share',
    };
    await this.deliverBody(eventCallback(ids, { ...messageEvent(ids, post), files: [file], upload: false }));
  }

  /** A person edits their message: Slack sends `message_changed` with the new message in it. */
  async userEdits(p: { channel: string; ts: string; text: string }): Promise<void> {
    const ids = this.workspace.ids;
    const m = this.workspace.find(p.channel, p.ts);
    if (!m) throw new Error(`no message ${p.ts} in ${p.channel}`);
    m.text = p.text;
    m.edits++;
    const editTs = this.workspace.nextTs();
    const message = {
      type: 'message',
      user: m.user,
      text: p.text,
      ts: m.ts,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
      team: ids.teamId,
      edited: { user: m.user, ts: editTs },
    };
    await this.deliverBody(
      eventCallback(ids, {
        type: 'message',
        subtype: 'message_changed',
        hidden: true,
        message,
        previous_message: { ...message, text: 'before' },
        channel: p.channel,
        ts: editTs,
        event_ts: editTs,
        channel_type: p.channel.startsWith('D') ? 'im' : 'channel',
      }),
    );
  }

  /** A person deletes their message: Slack sends `message_deleted` with its `deleted_ts`. */
  async userDeletes(p: { channel: string; ts: string }): Promise<void> {
    const ids = this.workspace.ids;
    this.workspace.remove(p.channel, p.ts);
    const ts = this.workspace.nextTs();
    await this.deliverBody(
      eventCallback(ids, {
        type: 'message',
        subtype: 'message_deleted',
        hidden: true,
        deleted_ts: p.ts,
        channel: p.channel,
        ts,
        event_ts: ts,
        channel_type: p.channel.startsWith('D') ? 'im' : 'channel',
      }),
    );
  }

  /** Delivers any event_callback body (or anything else, to test malformed input). */
  async deliverBody(body: Record<string, unknown>, into?: PostResult): Promise<void> {
    if (this.delivery === 'socket') {
      const rec = this.link.deliver(body);
      into?.socket.push(rec);
    } else {
      const rec = await this.events.deliver(body);
      into?.http.push(rec);
    }
  }

  /**
   * `user` types `/boxbot <text>` (or another `command`) in `channel`: form fields posted to the
   * request URL, or a `slash_commands` envelope, signed and acknowledged like events.
   */
  async slashCommand(p: {
    channel: string;
    text: string;
    user?: string;
    command?: string;
  }): Promise<InteractionDelivery> {
    const user = p.user ?? 'U0USER0001';
    const fields = slashCommandFields(this.workspace.ids, {
      channel: p.channel,
      user,
      userName: this.workspace.users.get(user)?.name ?? user.toLowerCase(),
      command: p.command ?? '/boxbot',
      text: p.text,
      responseUrl: `http://127.0.0.1:${this.port}/commands/${this.workspace.ids.teamId}/response`,
    });
    return this.deliverInteraction(fields, 'slash_commands', fields);
  }

  /**
   * `user` presses the button `actionId` under the bot's message `ts` in `channel` (it must be
   * shown there): a block_actions payload posted as `payload=<json>`, or an `interactive` envelope.
   */
  async pressButton(p: { channel: string; ts: string; actionId: string; user?: string }): Promise<InteractionDelivery> {
    const m = this.workspace.find(p.channel, p.ts);
    const button = m ? buttonsOf(m).find((b) => b.actionId === p.actionId) : undefined;
    if (!m || !button) throw new Error(`no button ${p.actionId} under ${p.channel}/${p.ts}`);
    const user = p.user ?? 'U0USER0001';
    const payload = blockActionsPayload(this.workspace.ids, {
      m,
      user,
      userName: this.workspace.users.get(user)?.name ?? user.toLowerCase(),
      actionId: p.actionId,
      blockId: button.blockId,
      responseUrl: `http://127.0.0.1:${this.port}/actions/${this.workspace.ids.teamId}/response`,
    });
    return this.deliverInteraction(payload, 'interactive', { payload: JSON.stringify(payload) });
  }

  /** Delivers a slash command or press again (Socket Mode: a new envelope; HTTP: a retry). */
  async redeliverInteraction(d: InteractionDelivery): Promise<void> {
    if (d.socket) this.link.deliver(d.socket.payload, d.socket.type);
    else if (d.http) await this.events.redeliver(d.http, 'http_timeout');
  }

  private async deliverInteraction(
    body: Record<string, unknown>,
    type: 'slash_commands' | 'interactive',
    form: Record<string, string>,
  ): Promise<InteractionDelivery> {
    if (this.delivery === 'socket') return { body, socket: this.link.deliver(body, type) };
    return { body, http: await this.events.deliver(body, form) };
  }

  /** Wraps `event` in an event_callback body with a fresh event id and delivers it. */
  async deliverEvent(event: Record<string, unknown>): Promise<string> {
    const body = eventCallback(this.workspace.ids, event, newEventId());
    await this.deliverBody(body);
    return body.event_id as string;
  }

  /** Messages the bot posted, in order, with their latest text. */
  botMessages(): StoredMessage[] {
    return this.workspace.bot.slice();
  }

  /** Files the bot shared, in order, with the message they came with. */
  botFiles(): (SlackFile & { channel: string; threadTs?: string; comment: string })[] {
    return this.workspace.bot.flatMap((m) =>
      (m.files ?? []).map((f) => ({
        ...f,
        channel: m.channel,
        ...(m.threadTs ? { threadTs: m.threadTs } : {}),
        comment: m.text,
      })),
    );
  }

  /** The next `n` chat.postMessage/chat.update calls get HTTP 429 with `Retry-After: retryAfterSec`. */
  rateLimitNext(n: number, retryAfterSec: number, methods = ['chat.postMessage', 'chat.update']): void {
    this.api.rateLimitNext(n, retryAfterSec, methods);
  }

  /** Ends rate limiting: the 429s not handed out yet are dropped. */
  clearRateLimits(): void {
    this.api.clearRateLimits();
  }

  /** Stops listening and drops every connection and timer. */
  async close(): Promise<void> {
    this.link.close();
    this.events.close();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private echoBot(m: StoredMessage, kind: 'posted' | 'edited'): void {
    if (!this.echo) return;
    const ids = this.workspace.ids;
    const channelType = m.channel.startsWith('D') ? 'im' : 'channel';
    const bot = {
      type: 'message',
      text: m.text,
      user: ids.botUserId,
      bot_id: ids.botId,
      app_id: ids.appId,
      ts: m.ts,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
      team: ids.teamId,
    };
    const event =
      kind === 'posted'
        ? { ...bot, channel: m.channel, event_ts: m.ts, channel_type: channelType }
        : {
            type: 'message',
            subtype: 'message_changed',
            hidden: true,
            message: { ...bot, edited: { user: ids.botUserId, ts: this.workspace.nextTs() } },
            channel: m.channel,
            ts: this.workspace.nextTs(),
            event_ts: m.ts,
            channel_type: channelType,
          };
    void this.deliverBody(eventCallback(ids, event));
  }
}

/** Starts an emulated Slack on 127.0.0.1 port 0. */
export async function startSlackEmulator(opts: SlackEmulatorOptions = {}): Promise<SlackEmulator> {
  return new SlackEmulator(opts).listen();
}
