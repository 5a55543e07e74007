// The one entry point for Slack events (grammY's handleUpdate): every Bolt listener (events,
// slash commands, button presses, over Socket Mode or HTTP) ends here. Normalizes, drops what is
// not for the agent, and hands each message to the sink exactly once even when Slack redelivers
// it (RecentEvents), with the sender's display name looked up when the payload carried none
// (UserNames).

import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { InboundSink, NormalizeResult } from '../types.ts';
import { normalizeSlackEvent, type SlackNormalizeContext } from './normalize.ts';

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
   * Handles one body (an Events API body unless another normalizer is given). True when Slack may
   * consider it received (delivered before, delivered now, or deliberately dropped); false when
   * Slack should deliver it again.
   */
  async dispatch(
    body: unknown,
    info: DeliveryInfo,
    normalize: (body: unknown, ctx: SlackNormalizeContext) => NormalizeResult = normalizeSlackEvent,
  ): Promise<boolean> {
    if (!this.sink) return false;
    const result = normalize(body, { ...this.context(), receivedAt: new Date() });
    if (result.kind === 'malformed') {
      this.log.warn({ via: info.via, reason: result.reason }, 'dropped a malformed Slack event');
      return true;
    }
    if (result.kind === 'ignored') {
      this.log.debug({ via: info.via, reason: result.reason }, 'ignored a Slack event');
      return true;
    }
    const message = result.message;
    if (info.retryNum)
      this.log.debug(
        { id: message.id, retryNum: info.retryNum, retryReason: info.retryReason },
        'Slack redelivered an event',
      );
    return this.recent.once(message.id, async () => {
      const sink = this.sink;
      if (!sink) throw new Error('stopped');
      if (message.userName === message.userId)
        message.userName = (await this.userName(message.userId)) ?? message.userId;
      try {
        await sink(message);
      } catch (e) {
        this.log.error(
          { id: message.id, err: errorMessage(e) },
          'the sink refused a Slack message; Slack will redeliver it',
        );
        throw e;
      }
    });
  }
}

// Slack redelivers an event it thinks was not received (X-Slack-Retry-Num over HTTP,
// retry_attempt in Socket Mode). This remembers recent and in-flight event ids so a redelivery
// joins the first delivery's outcome instead of reaching the sink twice. The gateway's persisted
// dedupe (by InboundMessage.id) covers restarts; this covers the seconds in between.

/** A bounded memory of event ids: in flight (joinable) or done. */
export class RecentEvents {
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private readonly done = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  /**
   * Runs `deliver` once per id. A second call while the first runs gets the first's outcome;
   * after success, later calls resolve true without running; after a failure the next call runs
   * again (so the platform's retry is delivered).
   */
  async once(id: string, deliver: () => Promise<void>): Promise<boolean> {
    if (this.done.has(id)) return true;
    const running = this.inFlight.get(id);
    if (running) return running;
    const attempt = deliver().then(
      () => {
        this.remember(id);
        return true;
      },
      () => false,
    );
    this.inFlight.set(id, attempt);
    try {
      return await attempt;
    } finally {
      this.inFlight.delete(id);
    }
  }

  /** True when `id` was delivered successfully (and is still remembered). */
  has(id: string): boolean {
    return this.done.has(id);
  }

  private remember(id: string): void {
    this.done.add(id);
    if (this.done.size > this.capacity) {
      const oldest = this.done.values().next().value;
      if (oldest !== undefined) this.done.delete(oldest);
    }
  }
}

// Slack events carry only user ids; people are shown (and /whoami answers) by name. Names come
// from users.info once per user and are cached; without the users:read scope, or when Slack
// refuses, the id stands in and the lookup is not retried for a while.

/** Looks up and caches display names. */
export class UserNames {
  private readonly cache = new Map<string, { name: string | undefined; until: number }>();
  private readonly pending = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly lookup: (userId: string) => Promise<string | undefined>,
    private readonly opts: {
      ttlMs?: number;
      failureTtlMs?: number;
      capacity?: number;
      timeoutMs?: number;
      now?: () => number;
    } = {},
  ) {}

  /** The user's display name, or undefined when it cannot be known (never throws). */
  async name(userId: string): Promise<string | undefined> {
    const now = (this.opts.now ?? Date.now)();
    const hit = this.cache.get(userId);
    if (hit && hit.until > now) return hit.name;
    const running = this.pending.get(userId);
    if (running) return running;
    const p = this.bounded(userId).then(
      (name) =>
        this.store(userId, name, now + (name ? (this.opts.ttlMs ?? 3_600_000) : (this.opts.failureTtlMs ?? 600_000))),
      () => this.store(userId, undefined, now + (this.opts.failureTtlMs ?? 600_000)),
    );
    this.pending.set(userId, p);
    try {
      return await p;
    } finally {
      this.pending.delete(userId);
    }
  }

  // A slow users.info must not hold the event past Slack's 3-second ack deadline.
  private bounded(userId: string): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('users.info timed out')), this.opts.timeoutMs ?? 1500);
    });
    return Promise.race([this.lookup(userId), timeout]).finally(() => clearTimeout(timer));
  }

  private store(userId: string, name: string | undefined, until: number): string | undefined {
    this.cache.delete(userId);
    this.cache.set(userId, { name, until });
    if (this.cache.size > (this.opts.capacity ?? 5000)) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    return name;
  }
}
