// Slack events carry only user ids; people are shown (and /whoami answers) by name. Names come
// from users.info once per user and are cached; without the users:read scope, or when Slack
// refuses, the id stands in and the lookup is not retried for a while.

/** Looks up and caches display names. */
export class UserNames {
  private readonly cache = new Map<string, { name: string | undefined; until: number }>();
  private readonly pending = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly lookup: (userId: string) => Promise<string | undefined>,
    private readonly opts: { ttlMs?: number; failureTtlMs?: number; capacity?: number; timeoutMs?: number; now?: () => number } = {},
  ) {}

  /** The user's display name, or undefined when it cannot be known (never throws). */
  async name(userId: string): Promise<string | undefined> {
    const now = (this.opts.now ?? Date.now)();
    const hit = this.cache.get(userId);
    if (hit && hit.until > now) return hit.name;
    const running = this.pending.get(userId);
    if (running) return running;
    const p = this.bounded(userId).then(
      (name) => this.store(userId, name, now + (name ? (this.opts.ttlMs ?? 3_600_000) : (this.opts.failureTtlMs ?? 600_000))),
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
