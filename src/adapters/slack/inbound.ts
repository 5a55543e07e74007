// The one entry point for Slack events (grammY's handleUpdate): Socket Mode envelopes and HTTP
// event deliveries both end here. Normalizes, drops what is not for the agent, and hands each
// message to the sink exactly once even when Slack redelivers it.
import type { Logger } from '../../log.ts';
import type { InboundSink } from '../types.ts';
import { normalizeSlackEvent, type SlackNormalizeContext } from './normalize.ts';
import { RecentEvents } from './recent-events.ts';

/** Where a delivery came from, for logs. */
export interface DeliveryInfo {
  via: 'socket' | 'http';
  retryNum?: number;
  retryReason?: string;
}

/** Dispatches Events API bodies to the sink while open. */
export class SlackInbound {
  private sink: InboundSink | undefined;
  private readonly recent = new RecentEvents();

  constructor(
    private readonly log: Logger,
    private readonly context: () => Omit<SlackNormalizeContext, 'receivedAt'>,
    /** Display name of a user id, when the payload carried none (never throws). */
    private readonly userName: (userId: string) => Promise<string | undefined> = async () => undefined,
  ) {}

  /** Starts delivering to `sink`. */
  open(sink: InboundSink): void {
    this.sink = sink;
  }

  /** Stops delivering; later dispatches answer false (Slack should redeliver later). */
  close(): void {
    this.sink = undefined;
  }

  /** True while a sink is attached. */
  get isOpen(): boolean {
    return this.sink !== undefined;
  }

  /**
   * Handles one Events API body. True when Slack may consider it received (delivered before,
   * delivered now, or deliberately dropped); false when Slack should deliver it again.
   */
  async dispatch(body: unknown, info: DeliveryInfo): Promise<boolean> {
    if (!this.sink) return false;
    const result = normalizeSlackEvent(body, { ...this.context(), receivedAt: new Date() });
    if (result.kind === 'malformed') {
      this.log.warn({ via: info.via, reason: result.reason }, 'dropped a malformed Slack event');
      return true;
    }
    if (result.kind === 'ignored') {
      this.log.debug({ via: info.via, reason: result.reason }, 'ignored a Slack event');
      return true;
    }
    const message = result.message;
    if (info.retryNum) this.log.debug({ id: message.id, retryNum: info.retryNum, retryReason: info.retryReason }, 'Slack redelivered an event');
    return this.recent.once(message.id, async () => {
      const sink = this.sink;
      if (!sink) throw new Error('stopped');
      if (message.userName === message.userId) message.userName = (await this.userName(message.userId)) ?? message.userId;
      try {
        await sink(message);
      } catch (e) {
        this.log.error({ id: message.id, err: e instanceof Error ? e.message : String(e) }, 'the sink refused a Slack message; Slack will redeliver it');
        throw e;
      }
    });
  }
}
