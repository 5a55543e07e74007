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
