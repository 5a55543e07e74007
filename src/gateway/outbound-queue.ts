// One outbound queue per bot: every send, edit and typing signal of an adapter goes through it.
// Replies go before stream edits, a newer edit of a message replaces a queued older one, one
// item per conversation is in flight (so replies stay in order), and a 429's retry-after
// pauses the whole bot. Network failures and 5xx are retried with backoff, a bounded number of times.
import type { ChannelAdapter, OutboundTarget, SendOptions, SentMessage } from '../adapters/index.ts';
import { AdapterError } from '../adapters/index.ts';
import type { Logger } from '../log.ts';
import { silentLogger } from '../log.ts';

type Kind = 'send' | 'edit' | 'typing';
const PRIORITY: Record<Kind, number> = { send: 0, edit: 1, typing: 2 };

interface Item {
  kind: Kind;
  key: string;
  /** For edits: the message being edited (coalescing). */
  editOf?: string;
  run: () => Promise<unknown>;
  waiters: { resolve: (v: unknown) => void; reject: (e: unknown) => void }[];
  attempts: number;
  seq: number;
}

/** Options of an outbound queue. */
export interface OutboundQueueOptions {
  /** Items in flight at once across conversations (default 8). */
  concurrency?: number;
  /** Attempts per item for retryable failures (default 6). */
  maxAttempts?: number;
  /** Backoff base for network/5xx failures (default 500 ms). */
  backoffMs?: number;
  log?: Logger;
  /** Called on every 429 (metrics). */
  onRateLimited?: () => void;
}

/** Serializes and retries an adapter's outbound calls. */
export class OutboundQueue {
  private readonly items: Item[] = [];
  private readonly busy = new Set<string>();
  private inFlight = 0;
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private seq = 0;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly log: Logger;

  constructor(
    private readonly adapter: ChannelAdapter,
    private readonly opts: OutboundQueueOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 8;
    this.maxAttempts = opts.maxAttempts ?? 6;
    this.backoffMs = opts.backoffMs ?? 500;
    this.log = opts.log ?? silentLogger;
  }

  /** Sends a message; resolves with its platform id once it was delivered. */
  send(target: OutboundTarget, text: string, opts?: SendOptions): Promise<SentMessage> {
    return this.push('send', target.conversationKey, () => this.adapter.send(target, text, opts)) as Promise<SentMessage>;
  }

  /** Edits a message; an edit still waiting for the same message is replaced by this one. */
  edit(target: OutboundTarget, messageId: string, text: string, opts?: SendOptions): Promise<void> {
    return this.push('edit', target.conversationKey, () => this.adapter.edit(target, messageId, text, opts), messageId) as Promise<void>;
  }

  /** A typing signal; dropped (resolved) when one is already waiting for the conversation. */
  typing(target: OutboundTarget): Promise<void> {
    if (!this.adapter.capabilities.typing) return Promise.resolve();
    if (this.items.some((i) => i.kind === 'typing' && i.key === target.conversationKey)) return Promise.resolve();
    return this.push('typing', target.conversationKey, () => this.adapter.typing(target)).catch(() => undefined) as Promise<void>;
  }

  /** Items waiting or in flight. */
  get size(): number {
    return this.items.length + this.inFlight;
  }

  private push(kind: Kind, key: string, run: () => Promise<unknown>, editOf?: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (editOf) {
        const queued = this.items.find((i) => i.kind === 'edit' && i.editOf === editOf);
        if (queued) {
          queued.run = run;
          queued.waiters.push({ resolve, reject });
          return;
        }
      }
      this.items.push({ kind, key, run, waiters: [{ resolve, reject }], attempts: 0, seq: this.seq++, ...(editOf ? { editOf } : {}) });
      this.pump();
    });
  }

  /** The item to run next, in one pass: replies before edits before typing, oldest first. */
  private next(): Item | undefined {
    let best: Item | undefined;
    // Within a conversation, order is strict: only its oldest send/edit may go (typing may pass).
    const headSeen = new Set<string>();
    for (const item of this.items) {
      if (item.kind !== 'typing') {
        if (headSeen.has(item.key)) continue;
        headSeen.add(item.key);
      }
      if (this.busy.has(item.key)) continue;
      if (!best || PRIORITY[item.kind] < PRIORITY[best.kind] || (PRIORITY[item.kind] === PRIORITY[best.kind] && item.seq < best.seq)) best = item;
    }
    return best;
  }

  private pump(): void {
    const wait = this.pausedUntil - Date.now();
    if (wait > 0) {
      if (!this.timer) this.timer = setTimeout(() => ((this.timer = undefined), this.pump()), wait);
      return;
    }
    while (this.inFlight < this.concurrency) {
      const item = this.next();
      if (!item) return;
      this.items.splice(this.items.indexOf(item), 1);
      this.busy.add(item.key);
      this.inFlight++;
      void this.attempt(item);
    }
  }

  private async attempt(item: Item): Promise<void> {
    item.attempts++;
    try {
      const v = await item.run();
      for (const w of item.waiters) w.resolve(v);
    } catch (e) {
      const retryable = e instanceof AdapterError && e.retryable && item.kind !== 'typing';
      if (retryable && item.attempts < this.maxAttempts) {
        const err = e as AdapterError;
        const delay = err.retryAfterMs ?? this.backoffMs * 2 ** (item.attempts - 1);
        if (err.retryAfterMs !== undefined) {
          this.pausedUntil = Math.max(this.pausedUntil, Date.now() + err.retryAfterMs);
          this.opts.onRateLimited?.();
        }
        this.log.warn({ channel: this.adapter.platform, kind: item.kind, attempt: item.attempts, delayMs: delay, err: err.message }, 'outbound call failed; retrying');
        // Back at the front of its conversation, so order holds.
        this.items.unshift(item);
        if (err.retryAfterMs === undefined) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + Math.min(delay, 30_000));
      } else {
        for (const w of item.waiters) w.reject(e);
      }
    } finally {
      this.busy.delete(item.key);
      this.inFlight--;
      this.pump();
    }
  }

  /** Stops retry timers (pending items are rejected). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const item of this.items.splice(0)) for (const w of item.waiters) w.reject(new Error('outbound queue closed'));
  }
}
