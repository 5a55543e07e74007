// The Bolt receiver that keeps "journal, then acknowledge": every body (Events API, slash command,
// block action; from Socket Mode or the HTTP route) goes through Bolt's App.processEvent, and the
// acknowledgement Bolt's ack() asks for is held until processEvent has finished, i.e. until the
// listener's sink call resolved (the message is durably accepted). Bolt's own receivers cannot do
// this here: its SocketModeReceiver acks events before the listeners run (the ack is sent as soon
// as App calls ack(), which App does for events before any listener), and its HTTP receivers own
// their server or Express app, while boxbot serves routes on the gateway's own server (AdapterRoute).
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { AdapterError } from '../errors.ts';
import type { DeliveryInfo } from './inbound.ts';

/** The outcome of one body: acknowledge it (with Bolt's ack payload, if any) or let Slack redeliver. */
export type Delivery = { ok: true; response?: unknown } | { ok: false };

/** A listener throws this when the sink refused an event: Slack must not get an acknowledgement. */
export class SinkRefusedError extends AdapterError {
  constructor() {
    super('slack', 'sink-refused', 'the sink did not accept the event; Slack will redeliver it', true);
  }
}

/** Receives from the Socket Mode link and the HTTP route; the App calls start/stop/init. */
export class JournalFirstReceiver implements Receiver {
  private app: App | undefined;

  constructor(
    private readonly log: Logger,
    /** What App.start()/stop() do: connect or close Socket Mode (nothing in HTTP mode). */
    private readonly connection: { start(): Promise<void>; stop(): Promise<void> },
  ) {}

  init(app: App): void {
    this.app = app;
  }

  start(): Promise<void> {
    return this.connection.start();
  }

  stop(): Promise<void> {
    return this.connection.stop();
  }

  /** Runs one body through the App; resolves once its listeners finished. */
  async dispatch(body: Record<string, unknown>, info: DeliveryInfo): Promise<Delivery> {
    const app = this.app;
    if (!app) return { ok: false };
    let response: unknown;
    const event: ReceiverEvent = {
      body,
      ack: async (payload?: unknown) => {
        response = payload;
      },
      ...(info.retryNum !== undefined ? { retryNum: info.retryNum } : {}),
      ...(info.retryReason ? { retryReason: info.retryReason } : {}),
      customProperties: { via: info.via },
    };
    try {
      await app.processEvent(event);
    } catch (e) {
      if (e instanceof SinkRefusedError) return { ok: false };
      // Bolt itself failed on the body (it reads some fields unguarded): a malformed payload that
      // a redelivery would not fix, so it is acknowledged and dropped.
      this.log.warn({ err: errorMessage(e) }, 'dropped a malformed Slack event (Bolt could not read it)');
      return { ok: true };
    }
    return response === undefined || response === '' ? { ok: true } : { ok: true, response };
  }
}
