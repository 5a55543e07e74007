// One outbound queue per bot: every send, edit and typing signal of an adapter goes through it.
// Replies go before stream edits, a newer edit of a message replaces a queued older one, one
// item per conversation is in flight (so replies stay in order), and a 429's retry-after
// pauses the whole bot. 429s, 5xx and network failures are retried until they succeed (a reply
// is never dropped because the platform was down for a while): 429s after their retry-after and
// without counting as failures, the others with doubling backoff capped at `maxBackoffMs`
// (holding only their conversation).
// File sends are sends: the same order, priority and retries. Reads of a channel's history (a
// digest's backfill) go last, share the 429 pause, and give up after a few other failures.
// With a rate gate (replicas on one database), the 429 pause is the bot's, not this process's:
// every call first asks the gate whether another replica was told to wait, and a 429 seen here
// is written to it.
// Only a refusal (4xx) or an unknown error reaches the caller, and `close()`; once the gateway is
// stopping (`stopRetrying()`), a failure reaches it too, and so does a wait for a retry.
// A send or edit may carry a fence (`mayGo`, replicas: this replica still owns the conversation),
// asked just before each try, retries included: one whose conversation passed to another replica
// while it waited (a 429 pause, a backoff, the conversation's earlier answer) is handed back with
// GatewayStoppingError(handedOver) instead of made, for the new owner answers it.
import type {
  AdapterCapabilities,
  ChannelAdapter,
  FileSendOptions,
  OutboundFile,
  OutboundTarget,
  SendOptions,
  SentMessage,
} from '../adapters/index.ts';
import { AdapterError } from '../adapters/index.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import { GatewayStoppingError } from '../runner/ports.ts';
import type { RateGateStore } from '../store/index.ts';

type Kind = 'send' | 'edit' | 'typing' | 'read';
const PRIORITY: Record<Kind, number> = { send: 0, edit: 1, typing: 2, read: 3 };
/** Tries of a read that fails other than by a 429 (a backfill is not worth holding the bot for). */
const READ_ATTEMPTS = 4;

interface Item {
  kind: Kind;
  key: string;
  /** For edits: the message being edited (coalescing). */
  editOf?: string;
  run: () => Promise<unknown>;
  /** Asked before each try: false hands the call back (its conversation is another replica's now). */
  mayGo?: Fence | undefined;
  waiters: { resolve: (v: unknown) => void; reject: (e: unknown) => void }[];
  /** Failures so far other than 429s (the backoff's exponent). */
  failures: number;
  /** After a failure: not tried again before this time (ms); its conversation waits meanwhile. */
  notBefore?: number;
  seq: number;
}

/** Whether a call for conversation `key` may still go (replicas: this one owns it). */
export type Fence = (key: string) => boolean;

/** Options of an outbound queue. */
export interface OutboundQueueOptions {
  /** Items in flight at once across conversations (default 8). */
  concurrency?: number;
  /** Backoff base for network/5xx failures (default 500 ms). */
  backoffMs?: number;
  /** Longest wait between two tries of a failing item (default 30 s). */
  maxBackoffMs?: number;
  log?: Logger;
  /** Called on every 429 (metrics). */
  onRateLimited?: () => void;
  /**
   * The send pause shared with other replicas of this bot (absent: the pause is this process's).
   * A gate that cannot be read does not hold sends: a database hiccup must not silence the bot.
   */
  gate?: RateGateStore;
  /** The bot's name in the gate (default: the adapter's platform, which has one bot per gateway). */
  gateKey?: string;
}

/** What a call left waiting for a retry gets once the gateway is stopping (not a refusal: its entry stays). */
function stoppingError(): Error {
  return new Error('not retried: the gateway is stopping');
}

/** Serializes and retries an adapter's outbound calls. */
export class OutboundQueue {
  private readonly items: Item[] = [];
  private readonly busy = new Set<string>();
  private inFlight = 0;
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private seq = 0;
  private readonly concurrency: number;
  private readonly maxBackoffMs: number;
  private readonly backoffMs: number;
  private closed = false;
  /** False once stopRetrying() was called. */
  private retrying = true;
  private readonly log: Logger;

  constructor(
    private readonly adapter: ChannelAdapter,
    private readonly opts: OutboundQueueOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 8;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
    this.backoffMs = opts.backoffMs ?? 500;
    this.log = opts.log ?? silentLogger;
  }

  /** Sends a message; resolves with its platform id once it was delivered. */
  send(target: OutboundTarget, text: string, opts?: SendOptions, mayGo?: Fence): Promise<SentMessage> {
    return this.push(
      'send',
      target.conversationKey,
      () => this.adapter.send(target, text, opts),
      undefined,
      mayGo,
    ) as Promise<SentMessage>;
  }

  /** Whether the platform takes files (the adapter has `sendFile`). */
  get sendsFiles(): boolean {
    return typeof this.adapter.sendFile === 'function';
  }

  /**
   * Sends a file natively; resolves with its platform message id once delivered. Every retry
   * hands the adapter the same options: the same idempotency key, and the same `upload`, so one
   * that journaled a handle resumes that upload.
   */
  sendFile(target: OutboundTarget, file: OutboundFile, opts?: FileSendOptions, mayGo?: Fence): Promise<SentMessage> {
    const send = this.adapter.sendFile;
    if (!send) return Promise.reject(new Error(`the ${this.adapter.platform} adapter cannot send files`));
    const run = () => send.call(this.adapter, target, file, opts);
    return this.push('send', target.conversationKey, run, undefined, mayGo) as Promise<SentMessage>;
  }

  /** The platform's name (labels of what is counted per platform). */
  get platform(): string {
    return this.adapter.platform;
  }

  /** What the platform can do. */
  get capabilities(): AdapterCapabilities {
    return this.adapter.capabilities;
  }

  /** Edits a message; an edit still waiting for the same message is replaced by this one. */
  edit(target: OutboundTarget, messageId: string, text: string, opts?: SendOptions, mayGo?: Fence): Promise<void> {
    return this.push(
      'edit',
      target.conversationKey,
      () => this.adapter.edit(target, messageId, text, opts),
      messageId,
      mayGo,
    ) as Promise<void>;
  }

  /** Tells the adapter a preview already shows its final text (ChannelAdapter.previewFinal; no platform call). */
  previewFinal(target: OutboundTarget, messageId: string): void {
    this.adapter.previewFinal?.(target, messageId);
  }

  /** A typing signal; dropped (resolved) when one is already waiting for the conversation. */
  typing(target: OutboundTarget): Promise<void> {
    if (!this.adapter.capabilities.typing) return Promise.resolve();
    if (this.items.some((i) => i.kind === 'typing' && i.key === target.conversationKey)) return Promise.resolve();
    return this.push('typing', target.conversationKey, () => this.adapter.typing(target)).catch(
      () => undefined,
    ) as Promise<void>;
  }

  /**
   * One read request (a page of channel history) behind the bot's sends: waits out the bot's 429
   * pause, and a 429 it gets pauses the bot; a network failure or 5xx is tried up to 4 times.
   * Reads with the same `key` run one at a time, in order.
   */
  read<T>(key: string, call: () => Promise<T>): Promise<T> {
    return this.push('read', key, call) as Promise<T>;
  }

  /** Items waiting or in flight. */
  get size(): number {
    return this.items.length + this.inFlight;
  }

  private push(kind: Kind, key: string, run: () => Promise<unknown>, editOf?: string, mayGo?: Fence): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('outbound queue closed'));
      if (editOf) {
        const queued = this.items.find((i) => i.kind === 'edit' && i.editOf === editOf);
        if (queued) {
          queued.run = run;
          queued.mayGo = mayGo;
          queued.waiters.push({ resolve, reject });
          return;
        }
      }
      this.items.push({
        kind,
        key,
        run,
        waiters: [{ resolve, reject }],
        failures: 0,
        seq: this.seq++,
        ...(editOf ? { editOf } : {}),
        ...(mayGo ? { mayGo } : {}),
      });
      this.pump();
    });
  }

  /**
   * The index of the item to run next: replies before edits before typing, oldest first. `wake`
   * learns the earliest time an item now backing off may go. `items` is in `seq` order, so the
   * first reply that may go is the one: the pass ends there (with thousands of conversations
   * waiting in a burst, a full pass per pick made the picks quadratic). A pass that finds nothing
   * has seen every item, so `wake` is complete whenever it matters (with a slot free).
   */
  private next(now: number, wake: { at: number }): number {
    let best = -1;
    // Within a conversation, order is strict: only its oldest send/edit may go (typing may pass).
    const headSeen = new Set<string>();
    for (let i = 0; i < this.items.length; i++) {
      const item = this.items[i]!;
      if (item.kind !== 'typing') {
        if (headSeen.has(item.key)) continue;
        headSeen.add(item.key);
      }
      if (this.busy.has(item.key)) continue;
      if (item.notBefore !== undefined && item.notBefore > now) {
        wake.at = Math.min(wake.at, item.notBefore);
        continue;
      }
      if (PRIORITY[item.kind] === 0) return i;
      const b = this.items[best];
      if (
        !b ||
        PRIORITY[item.kind] < PRIORITY[b.kind] ||
        (PRIORITY[item.kind] === PRIORITY[b.kind] && item.seq < b.seq)
      )
        best = i;
    }
    return best;
  }

  /** Puts an item taken out back in its place by `seq`: first of its conversation, as it was. */
  private putBack(item: Item): void {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]!.seq < item.seq) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, item);
  }

  /** Calls pump() at `at` (keeps the earliest of the times asked for). */
  private wakeAt(at: number): void {
    if (at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.pump();
      },
      Math.max(0, at - Date.now()),
    );
  }

  private pump(): void {
    const now = Date.now();
    if (this.pausedUntil > now) return this.wakeAt(this.pausedUntil);
    const wake = { at: Infinity };
    while (this.inFlight < this.concurrency) {
      const at = this.next(now, wake);
      if (at < 0) break;
      const item = this.items.splice(at, 1)[0]!;
      this.busy.add(item.key);
      this.inFlight++;
      void this.attempt(item);
    }
    if (wake.at < Infinity) this.wakeAt(wake.at);
  }

  /** How long the bot's shared pause still holds sends (0 without a gate or when it cannot be read). */
  private async gateWait(): Promise<number> {
    const gate = this.opts.gate;
    if (!gate) return 0;
    try {
      return await gate.remaining(this.gateKey);
    } catch (e) {
      this.log.warn({ channel: this.adapter.platform, err: (e as Error).message }, 'rate gate unreadable; sending');
      return 0;
    }
  }

  private get gateKey(): string {
    return this.opts.gateKey ?? this.adapter.platform;
  }

  private async attempt(item: Item): Promise<void> {
    try {
      const wait = await this.gateWait();
      if (wait > 0 && !this.closed && !this.retrying) {
        for (const w of item.waiters) w.reject(stoppingError());
        return;
      }
      if (wait > 0 && !this.closed) {
        // Another replica was told to wait: this one waits as long, without counting a failure.
        this.pausedUntil = Math.max(this.pausedUntil, Date.now() + wait);
        this.putBack(item);
        return;
      }
      if (item.mayGo && !item.mayGo(item.key)) {
        for (const w of item.waiters) w.reject(new GatewayStoppingError(true));
        return;
      }
      const v = await item.run();
      for (const w of item.waiters) w.resolve(v);
    } catch (e) {
      const retryable =
        e instanceof AdapterError &&
        e.retryable &&
        item.kind !== 'typing' &&
        !this.closed &&
        this.retrying &&
        !(item.kind === 'read' && e.retryAfterMs === undefined && item.failures + 1 >= READ_ATTEMPTS);
      if (retryable) {
        const err = e as AdapterError;
        let delay: number;
        if (err.retryAfterMs !== undefined) {
          // The platform said when: the whole bot waits exactly that; not a failure of this item.
          delay = err.retryAfterMs;
          this.pausedUntil = Math.max(this.pausedUntil, Date.now() + delay);
          this.opts.onRateLimited?.();
          // Written before the retry is queued, so the other replicas hold from now on too.
          await this.opts.gate?.pause(this.gateKey, delay).catch((ge: unknown) => {
            this.log.warn({ channel: this.adapter.platform, err: (ge as Error).message }, 'rate gate not written');
          });
        } else {
          // Only this conversation waits: one chat the platform fails on does not slow the others.
          item.failures++;
          delay = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** Math.min(item.failures - 1, 30));
          item.notBefore = Date.now() + delay;
        }
        this.log.warn(
          {
            channel: this.adapter.platform,
            kind: item.kind,
            failures: item.failures,
            delayMs: delay,
            err: err.message,
          },
          'outbound call failed; retrying',
        );
        // Back at the front of its conversation, so order holds.
        this.putBack(item);
      } else {
        for (const w of item.waiters) w.reject(e);
      }
    } finally {
      this.busy.delete(item.key);
      this.inFlight--;
      if (!this.closed) this.pump();
    }
  }

  /**
   * For a stopping gateway: what may go now still goes, but a failure is no longer retried (the
   * caller gets it) and what waits for a retry (its backoff, or the bot's 429 pause) is handed back
   * now. Stopping then never waits out a platform that is down: the answers' entries stay in the
   * outbox, and the next start (or the replica that takes the conversation) delivers them.
   */
  stopRetrying(): void {
    this.retrying = false;
    const now = Date.now();
    const paused = this.pausedUntil > now;
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i]!;
      if (!paused && (item.notBefore === undefined || item.notBefore <= now)) continue;
      this.items.splice(i, 1);
      for (const w of item.waiters) w.reject(stoppingError());
    }
    if (!this.closed) this.pump();
  }

  /** Stops retry timers (pending items are rejected). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    for (const item of this.items.splice(0)) for (const w of item.waiters) w.reject(new Error('outbound queue closed'));
  }
}
