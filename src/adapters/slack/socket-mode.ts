// Socket Mode delivery: apps.connections.open (app-level token) → WebSocket → envelopes
// (`events_api`, `slash_commands`, `interactive`), each acknowledged by envelope_id only after the
// Bolt App processed it (the sink accepted it), so an event the gateway did not persist is
// redelivered by Slack (with retry_attempt) instead of being lost. The client is @slack/socket-mode's
// (the one inside Bolt's SocketModeReceiver, which acks events before its listeners run).
// Reconnects are ours, not the library's: its own loop turns a failed apps.connections.open
// (network down, HTTP 5xx) into an unhandled rejection, and waits 5 s on every refresh.
import { SocketModeClient } from '@slack/socket-mode';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { slackLogger, webClientOptions } from './api.ts';
import type { DeliveryInfo } from './inbound.ts';
import type { Delivery } from './receiver.ts';

/** The envelope types that carry something for the App; others are acknowledged and dropped. */
const DELIVERED_TYPES = new Set(['events_api', 'slash_commands', 'interactive']);

/** Backoff between reconnect attempts: at once, then 1 s doubling to 30 s. */
const reconnectDelayMs = (failures: number): number =>
  failures === 0 ? 0 : Math.min(30_000, 1000 * 2 ** (failures - 1));

/** A running Socket Mode connection. */
export interface SlackSocket {
  /** Closes the connection (no more envelopes are read). */
  stop(): Promise<void>;
}

interface SlackEventArgs {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  envelope_id?: string;
  type?: string;
  body?: unknown;
  retry_num?: number;
  retry_reason?: string;
}

/** Connects and feeds every envelope's body to `onBody`; resolves once Slack said hello. */
export async function startSocketMode(opts: {
  appToken: string;
  apiUrl?: string;
  logger: Logger;
  onBody: (body: Record<string, unknown>, info: DeliveryInfo) => Promise<Delivery>;
}): Promise<SlackSocket> {
  const log = opts.logger;
  const client = new SocketModeClient({
    appToken: opts.appToken,
    logger: slackLogger(log),
    clientOptions: webClientOptions({ apiUrl: opts.apiUrl }),
    autoReconnectEnabled: false,
  });
  guardMalformedEnvelopes(client, log);

  client.on('slack_event', (args: SlackEventArgs) => {
    void handle(args).catch((e: unknown) =>
      log.warn({ err: errorMessage(e) }, 'could not acknowledge a Slack envelope'),
    );
  });
  const handle = async (args: SlackEventArgs): Promise<void> => {
    const body = args.body;
    if (!DELIVERED_TYPES.has(args.type ?? '') || typeof body !== 'object' || body === null) {
      await args.ack();
      return;
    }
    const info: DeliveryInfo = {
      via: 'socket',
      ...(args.retry_num ? { retryNum: args.retry_num } : {}),
      ...(args.retry_reason ? { retryReason: args.retry_reason } : {}),
    };
    const delivery = await opts.onBody(body as Record<string, unknown>, info);
    if (!delivery.ok) return;
    const payload = delivery.response;
    if (typeof payload === 'string') await args.ack({ text: payload });
    else
      await args.ack(
        typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : undefined,
      );
  };

  let stopping = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  const reconnect = (): void => {
    if (stopping || timer) return;
    const delay = reconnectDelayMs(failures);
    timer = setTimeout(() => {
      timer = undefined;
      if (stopping) return;
      client.start().then(
        () => {
          failures = 0;
          log.info('Socket Mode reconnected');
        },
        (e: unknown) => {
          failures += 1;
          log.warn({ err: errorMessage(e), failures }, 'Socket Mode reconnect failed; retrying');
          reconnect();
        },
      );
    }, delay);
  };

  await client.start();
  // Slack closes connections routinely (refresh_requested, pod recycling, missed pongs).
  client.on('disconnected', () => reconnect());
  return {
    stop: async () => {
      stopping = true;
      clearTimeout(timer);
      client.removeAllListeners('slack_event');
      client.removeAllListeners('disconnected');
      await client.disconnect();
    },
  };
}

// The client reads `payload.event.type` of every events_api envelope unguarded; a malformed one
// would reject inside its message listener (an unhandled rejection). Such an envelope is passed
// on with a placeholder event, so it is still acknowledged (and then dropped) the normal way.
function guardMalformedEnvelopes(client: SocketModeClient, log: Logger): void {
  const original = client.listeners('ws_message') as ((data: unknown, isBinary: boolean) => unknown)[];
  client.removeAllListeners('ws_message');
  client.on('ws_message', (data: unknown, isBinary: boolean) => {
    let forward = data;
    if (!isBinary && (typeof data === 'string' || data instanceof ArrayBuffer || ArrayBuffer.isView(data))) {
      const text = typeof data === 'string' ? data : new TextDecoder().decode(data as ArrayBuffer);
      const env = parse(text) as { type?: unknown; payload?: { event?: { type?: unknown } } } | undefined;
      if (env?.type === 'events_api' && typeof env.payload?.event?.type !== 'string') {
        log.warn('dropped a malformed Socket Mode envelope');
        forward = JSON.stringify({
          ...env,
          payload: { type: 'event_callback', event: { type: 'malformed_envelope' } },
        });
      }
    }
    for (const listener of original) {
      void Promise.resolve(listener.call(client, forward, isBinary)).catch((e: unknown) =>
        log.warn({ err: errorMessage(e) }, 'the Socket Mode client failed on a message'),
      );
    }
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
