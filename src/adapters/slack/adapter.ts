// The Slack ChannelAdapter, on Bolt's App: events, `/boxbot` slash commands and button presses
// arrive over Socket Mode or the HTTP route, pass through App.processEvent to one listener each,
// and are acknowledged only after the sink accepted them (receiver.ts). Web API calls out
// (chat.postMessage / chat.update / chat.postEphemeral, and files by the external upload flow,
// upload.ts) go to the configurable `apiUrl`; so do attachment downloads that carry the bot token.
import { App } from '@slack/bolt';
import { type Logger, silentLogger } from '../../core/log.ts';
import { ButtonMemory } from '../button-memory.ts';
import type { ChannelHistoryReader, ChannelObserver } from '../channel-event.ts';
import { AdapterApiError, AdapterError, alreadyStarted } from '../errors.ts';
import { type MarkupStyle, withMarkupFallback } from '../markup-fallback.ts';
import type { AdapterCapabilities, AdapterRoute, Button, ChannelAdapter, SentMessage } from '../types.ts';
import { createWebClient, DEFAULT_SLACK_API_URL, slackLogger, toAdapterError, webClientOptions } from './api.ts';
import { messageBlocks } from './buttons.ts';
import { slackEventsRoute } from './events-route.ts';
import { fetchSlackFile } from './files.ts';
import { escapeSlackText, slackMarkdownBlocks, toSlackMrkdwn } from './format.ts';
import { type DeliveryInfo, SlackInbound, UserNames } from './inbound.ts';
import { normalizeSlackAction, normalizeSlackCommand } from './interactions.ts';
import { slackChannelEvent } from './observe.ts';
import { JournalFirstReceiver, SinkRefusedError } from './receiver.ts';
import { type SlackSocket, startSocketMode } from './socket-mode.ts';
import { uploadFile } from './upload.ts';

/** How the Slack adapter is wired; tokens come from readSecrets() and are never logged. */
export interface SlackAdapterOptions {
  /** `socket` (default; needs appToken) or `http` (Events API request URL; needs signingSecret). */
  mode?: 'socket' | 'http';
  /** Bot token (`xoxb-…`, SLACK_BOT_TOKEN). */
  botToken: string;
  /** App-level token (`xapp-…`, SLACK_APP_TOKEN) with connections:write, for Socket Mode. */
  appToken?: string;
  /** Signing secret (SLACK_SIGNING_SECRET), for HTTP mode. */
  signingSecret?: string;
  /** Web API root (config `slack.apiUrl`); default https://slack.com/api/. */
  apiUrl?: string;
  /**
   * Path of the HTTP-mode route; default `/webhooks/slack`. Point the Events API, the `/boxbot`
   * slash command and Interactivity request URLs all at it.
   */
  webhookPath?: string;
  logger?: Logger;
  /** Per-request timeout of Web API calls (ms); default 30 s. */
  requestTimeoutMs?: number;
  /** Told of every channel message, edit and deletion the bot sees (the channel log's recorder). */
  observe?: ChannelObserver;
}

/** The bot as auth.test describes it. */
interface SlackIdentity {
  userId: string;
  name: string;
  teamId?: string;
  botId?: string;
}

/**
 * Slack has no typing indicator for bots posting with chat.postMessage (the assistant
 * "is thinking" status exists only inside AI-app assistant threads), so `typing` is false and
 * the gateway's streamed edits are the sign of life. 40,000 characters is Slack's text limit.
 */
export const SLACK_CAPABILITIES: AdapterCapabilities = Object.freeze({
  edit: true,
  typing: false,
  threads: true,
  maxTextLength: 40_000,
  editIntervalMs: 500,
  typingIntervalMs: 0,
  followThreads: true,
  fileResend: 'resumes',
});

/**
 * Creates the Slack adapter.
 * @example
 * createSlackAdapter({ mode: 'socket', botToken: secrets.SLACK_BOT_TOKEN!, appToken: secrets.SLACK_APP_TOKEN! })
 */
export function createSlackAdapter(options: SlackAdapterOptions): ChannelAdapter {
  const mode = options.mode ?? 'socket';
  const log = (options.logger ?? silentLogger).child({ scope: 'adapter:slack' });
  if (!options.botToken) throw new AdapterError('slack', 'config', 'a bot token (SLACK_BOT_TOKEN) is required');
  if (mode === 'socket' && !options.appToken)
    throw new AdapterError('slack', 'config', 'Socket Mode needs an app-level token (SLACK_APP_TOKEN)');
  if (mode === 'http' && !options.signingSecret)
    throw new AdapterError('slack', 'config', 'HTTP Events mode needs the signing secret (SLACK_SIGNING_SECRET)');
  const web = createWebClient(options.botToken, {
    apiUrl: options.apiUrl,
    logger: log,
    timeoutMs: options.requestTimeoutMs,
  });
  let me: SlackIdentity | undefined;
  let socket: SlackSocket | undefined;

  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw toAdapterError(e);
    }
  };

  const names = new UserNames(async (user) => {
    const res = await web.users.info({ user });
    const u = res.user;
    return u?.profile?.display_name || u?.real_name || u?.name || undefined;
  });
  const inbound = new SlackInbound(
    log,
    () => ({
      ...(me?.userId ? { botUserId: me.userId } : {}),
      ...(me?.teamId ? { teamId: me.teamId } : {}),
    }),
    (id) => names.name(id),
  );

  const receiver = new JournalFirstReceiver(log, {
    async start() {
      if (mode !== 'socket') return;
      socket = await startSocketMode({
        appToken: options.appToken!,
        apiUrl: options.apiUrl,
        logger: log,
        onBody: (body, info) => receiver.dispatch(body, info),
      });
    },
    async stop() {
      const s = socket;
      socket = undefined;
      await s?.stop();
    },
  });
  const app = new App({
    receiver,
    // One workspace, one bot token; the identity comes from our own auth.test at start.
    authorize: async () => ({
      botToken: options.botToken,
      ...(me ? { botUserId: me.userId, ...(me.botId ? { botId: me.botId } : {}) } : {}),
      ...(me?.teamId ? { teamId: me.teamId } : {}),
    }),
    // Bolt's own clients (say/respond, unused) would go to the same API root as ours.
    clientOptions: webClientOptions({ apiUrl: options.apiUrl }),
    logger: slackLogger(log),
    // normalize.ts decides what is the bot's own message; the conversation store is not used.
    ignoreSelf: false,
    convoStore: false,
  });
  // A listener's failure is ours to judge (receiver.ts), not logged again by Bolt.
  app.error(async (e) => {
    throw e;
  });
  const infoOf = (context: { retryNum?: number; retryReason?: string; via?: unknown }): DeliveryInfo => ({
    via: context.via === 'http' ? 'http' : 'socket',
    ...(context.retryNum ? { retryNum: context.retryNum } : {}),
    ...(context.retryReason ? { retryReason: context.retryReason } : {}),
  });
  // Channel events for the log, one at a time so an edit never overtakes its message.
  let observed: Promise<void> = Promise.resolve();
  const observe = (body: unknown): void => {
    const to = options.observe;
    if (!to || !inbound.isOpen) return;
    observed = observed.then(async () => {
      const ctx = { ...(me?.userId ? { botUserId: me.userId } : {}), ...(me?.botId ? { botId: me.botId } : {}) };
      const event = slackChannelEvent(body, { ...ctx, ...(me?.teamId ? { teamId: me.teamId } : {}) });
      if (event?.kind === 'message' && event.userName === event.userId && event.userId.startsWith('U'))
        event.userName = (await names.name(event.userId)) ?? event.userId;
      if (event) to(event);
    });
  };
  /**
   * A channel's history since `from`, threads included (conversations.history and .replies, paged;
   * scopes channels:history / groups:history), for the channel log's backfill.
   */
  const readHistory: ChannelHistoryReader = async (channel, from, tell, signal, pace) => {
    const team = channel.scope ?? me?.teamId;
    if (!team) return 0;
    const oldest = (Date.parse(from) / 1000).toFixed(6);
    let read = 0;
    const emit = async (m: Record<string, unknown>) => {
      const body = { type: 'event_callback', team_id: team, event: { ...m, type: 'message', channel: channel.chatId } };
      const event = slackChannelEvent(body, { teamId: team });
      if (event?.kind !== 'message') return;
      const mine =
        (me?.userId !== undefined && m.user === me.userId) || (me?.botId !== undefined && m.bot_id === me.botId);
      if (mine) Object.assign(event, { bot: true, userName: me?.name ?? event.userName });
      else if (event.userName === event.userId) event.userName = (await names.name(event.userId)) ?? event.userId;
      tell(event);
      read++;
    };
    const pages = async (
      list: (
        cursor: string | undefined,
      ) => Promise<{ messages?: unknown[]; response_metadata?: { next_cursor?: string } }>,
      each: (m: Record<string, unknown>) => Promise<void>,
    ) => {
      let cursor: string | undefined;
      do {
        signal?.throwIfAborted();
        const page = await (pace ? pace(() => call(() => list(cursor))) : call(() => list(cursor)));
        for (const m of page.messages ?? [])
          if (typeof m === 'object' && m !== null) await each(m as Record<string, unknown>);
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
    };
    await pages(
      (cursor) =>
        web.conversations.history({ channel: channel.chatId, oldest, limit: 200, ...(cursor ? { cursor } : {}) }),
      async (m) => {
        await emit(m);
        if (typeof m.reply_count === 'number' && m.reply_count > 0 && typeof m.ts === 'string') {
          const ts = m.ts;
          await pages(
            (cursor) =>
              web.conversations.replies({ channel: channel.chatId, ts, limit: 200, ...(cursor ? { cursor } : {}) }),
            async (r) => {
              if (r.ts !== ts) await emit(r);
            },
          );
        }
      },
    );
    return read;
  };
  app.event(/.*/, async ({ body, context }) => {
    observe(body);
    if (!(await inbound.dispatch(body, infoOf(context)))) throw new SinkRefusedError();
  });
  // Slack does not redeliver slash commands or presses: they are acknowledged either way, and a
  // command the sink refused is answered (to its sender only) with a request to try again.
  app.command(/.*/, async ({ body, context, ack }) => {
    const accepted = await inbound.dispatch(body, infoOf(context), normalizeSlackCommand);
    await ack(
      accepted ? undefined : { response_type: 'ephemeral', text: 'boxbot could not take that now; try again.' },
    );
  });
  app.action({ type: 'block_actions' }, async ({ body, context, ack }) => {
    const accepted = await inbound.dispatch(body, infoOf(context), normalizeSlackAction);
    if (!accepted) log.warn('a button press was not accepted; the user may press again');
    await ack();
  });

  const route: AdapterRoute | undefined =
    mode === 'http'
      ? slackEventsRoute({
          path: options.webhookPath,
          signingSecret: options.signingSecret!,
          logger: log,
          isOpen: () => inbound.isOpen,
          onBody: (body, info) => receiver.dispatch(body, info),
        })
      : undefined;
  const buttonsShown = new ButtonMemory();

  // Markdown is rendered as mrkdwn; if Slack rejects the markup, the same text goes once more
  // as escaped plain text. Plain text is only escaped (not sent with mrkdwn:false: chat.update
  // has no such flag, and a streamed message must not change rendering between post and edits).
  const mrkdwn: MarkupStyle = { render: toSlackMrkdwn, plain: escapeSlackText, refused: (e) => e.isMarkupError, log };
  // A table goes in a markdown block as well (mrkdwn has none); `text` stays the notification and
  // fallback text. The plain retry drops the block with the markup (invalid_blocks is a refusal).
  // Buttons add an actions block after the text (buttons.ts).
  const blocksOf = (text: string, body: string, markup: boolean, buttons: Button[] | undefined) => {
    const blocks = messageBlocks(body, markup ? slackMarkdownBlocks(text) : undefined, buttons);
    return blocks ? { blocks } : {};
  };

  async function authTest(): Promise<SlackIdentity> {
    const res = await call(() => web.auth.test());
    if (typeof res.user_id !== 'string')
      throw new AdapterApiError('slack', 502, 'auth.test answered without a user_id');
    return {
      userId: res.user_id,
      name: typeof res.user === 'string' ? res.user : res.user_id,
      ...(typeof res.team_id === 'string' ? { teamId: res.team_id } : {}),
      ...(typeof res.bot_id === 'string' ? { botId: res.bot_id } : {}),
    };
  }

  return {
    platform: 'slack',
    readHistory,
    capabilities: SLACK_CAPABILITIES,

    async start(sink) {
      if (inbound.isOpen) throw alreadyStarted('slack');
      me = await authTest();
      inbound.open(sink);
      try {
        await app.start();
      } catch (e) {
        inbound.close();
        throw toAdapterError(e);
      }
      log.info({ mode, bot: me.userId, team: me.teamId }, 'slack adapter started');
    },

    async stop() {
      inbound.close();
      await app.stop();
    },

    async send(target, text, opts): Promise<SentMessage> {
      const buttons = opts?.buttons?.length ? opts.buttons : undefined;
      const sent = await withMarkupFallback(mrkdwn, text, opts, async (body, markup) => {
        const res = await call(() =>
          web.chat.postMessage({
            channel: target.chatId,
            text: body,
            ...blocksOf(text, body, markup, buttons),
            ...(target.threadId ? { thread_ts: target.threadId } : {}),
          }),
        );
        if (typeof res.ts !== 'string')
          throw new AdapterApiError('slack', 502, 'chat.postMessage answered without a ts');
        return { messageId: res.ts };
      });
      if (buttons) buttonsShown.set(target.chatId, sent.messageId, buttons);
      return sent;
    },

    sendFile: (target, file, opts) =>
      uploadFile(web, target, file, { timeoutMs: options.requestTimeoutMs ?? 30_000 }, opts?.upload),

    async edit(target, messageId, text, opts) {
      // New text means new blocks, so buttons an edit does not name are sent again to stay.
      const buttons = opts?.buttons ?? buttonsShown.get(target.chatId, messageId);
      await withMarkupFallback(mrkdwn, text, opts, (body, markup) =>
        call(() =>
          web.chat.update({
            channel: target.chatId,
            ts: messageId,
            text: body,
            ...blocksOf(text, body, markup, buttons),
          }),
        ),
      );
      if (opts?.buttons) buttonsShown.set(target.chatId, messageId, opts.buttons);
    },

    /** No-op: see SLACK_CAPABILITIES (the gateway does not call it while `typing` is false). */
    async typing() {},

    routes: () => (route ? [route] : []),

    async sendPrivate(to, text) {
      await call(() =>
        web.chat.postEphemeral({
          channel: to.chatId,
          user: to.userId,
          text: escapeSlackText(text),
          ...(to.threadId ? { thread_ts: to.threadId } : {}),
        }),
      );
    },

    async answerPress(press, text) {
      if (!press.action) throw new AdapterError('slack', 'not-a-press', 'answerPress needs a button press');
      await call(() =>
        web.chat.postEphemeral({
          channel: press.chatId,
          user: press.userId,
          text: escapeSlackText(text),
          ...(press.threadId ? { thread_ts: press.threadId } : {}),
        }),
      );
    },

    identity: () => (me ? { id: me.userId, name: me.name } : undefined),

    fetchAttachment: (attachment, opts) =>
      fetchSlackFile({ botToken: options.botToken, apiUrl: options.apiUrl ?? DEFAULT_SLACK_API_URL }, attachment, opts),
  };
}
