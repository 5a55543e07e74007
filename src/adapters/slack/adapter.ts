// The Slack ChannelAdapter: Socket Mode or HTTP Events delivery in, Web API chat.postMessage /
// chat.update out (files by the external upload flow, upload.ts). Built on @slack/web-api and
// @slack/socket-mode (Bolt's own building blocks) rather than Bolt's App: the gateway needs the
// raw event body, an ack only after its sink accepted the event, and a route on its own HTTP
// server — all things Bolt's App owns itself.

import { type Logger, silentLogger } from '../../log.ts';
import { AdapterApiError, AdapterError, alreadyStarted } from '../errors.ts';
import { type MarkupStyle, withMarkupFallback } from '../markup-fallback.ts';
import type { AdapterCapabilities, AdapterRoute, ChannelAdapter, SentMessage } from '../types.ts';
import { createWebClient, DEFAULT_SLACK_API_URL, toAdapterError } from './api.ts';
import { slackEventsRoute } from './events-route.ts';
import { fetchSlackFile } from './files.ts';
import { escapeSlackText, slackMarkdownBlocks, toSlackMrkdwn } from './format.ts';
import { SlackInbound, UserNames } from './inbound.ts';
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
  /** Path of the events route in HTTP mode; default `/webhooks/slack`. */
  webhookPath?: string;
  logger?: Logger;
  /** Per-request timeout of Web API calls (ms); default 30 s. */
  requestTimeoutMs?: number;
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
  const route: AdapterRoute | undefined =
    mode === 'http'
      ? slackEventsRoute({
          path: options.webhookPath,
          signingSecret: options.signingSecret!,
          logger: log,
          isOpen: () => inbound.isOpen,
          onEvent: (body, info) => inbound.dispatch(body, info),
        })
      : undefined;

  // Markdown is rendered as mrkdwn; if Slack rejects the markup, the same text goes once more
  // as escaped plain text. Plain text is only escaped (not sent with mrkdwn:false: chat.update
  // has no such flag, and a streamed message must not change rendering between post and edits).
  const mrkdwn: MarkupStyle = { render: toSlackMrkdwn, plain: escapeSlackText, refused: (e) => e.isMarkupError, log };
  // A table goes in a markdown block as well (mrkdwn has none); `text` stays the notification and
  // fallback text. The plain retry drops the block with the markup (invalid_blocks is a refusal).
  const blocksOf = (text: string, markup: boolean) => {
    const blocks = markup ? slackMarkdownBlocks(text) : undefined;
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
    capabilities: SLACK_CAPABILITIES,

    async start(sink) {
      if (inbound.isOpen) throw alreadyStarted('slack');
      me = await authTest();
      inbound.open(sink);
      if (mode === 'socket') {
        try {
          socket = await startSocketMode({
            appToken: options.appToken!,
            apiUrl: options.apiUrl,
            logger: log,
            onEvent: (body, info) => inbound.dispatch(body, info),
          });
        } catch (e) {
          inbound.close();
          throw toAdapterError(e);
        }
      }
      log.info({ mode, bot: me.userId, team: me.teamId }, 'slack adapter started');
    },

    async stop() {
      inbound.close();
      const s = socket;
      socket = undefined;
      await s?.stop();
    },

    async send(target, text, opts): Promise<SentMessage> {
      return withMarkupFallback(mrkdwn, text, opts, async (body, markup) => {
        const res = await call(() =>
          web.chat.postMessage({
            channel: target.chatId,
            text: body,
            ...blocksOf(text, markup),
            ...(target.threadId ? { thread_ts: target.threadId } : {}),
          }),
        );
        if (typeof res.ts !== 'string')
          throw new AdapterApiError('slack', 502, 'chat.postMessage answered without a ts');
        return { messageId: res.ts };
      });
    },

    sendFile: (target, file) => uploadFile(web, target, file, { timeoutMs: options.requestTimeoutMs ?? 30_000 }),

    async edit(target, messageId, text, opts) {
      await withMarkupFallback(mrkdwn, text, opts, (body, markup) =>
        call(() => web.chat.update({ channel: target.chatId, ts: messageId, text: body, ...blocksOf(text, markup) })),
      );
    },

    /** No-op: see SLACK_CAPABILITIES (the gateway does not call it while `typing` is false). */
    async typing() {},

    routes: () => (route ? [route] : []),

    identity: () => (me ? { id: me.userId, name: me.name } : undefined),

    fetchAttachment: (attachment, opts) =>
      fetchSlackFile({ botToken: options.botToken, apiUrl: options.apiUrl ?? DEFAULT_SLACK_API_URL }, attachment, opts),
  };
}
