// Run slots (`gateway.concurrency`): at most `size` runs do work at once; the rest wait in arrival order.
// A slot bounds the CPU and memory a run uses while it works: prompt building, media preparation, tools in the
// sandbox. It is not a bound on how many runs may wait: a run gives its slot up while it only waits on the network
// (a model stream) or on a person (an approval), and takes one again, ahead of runs not yet started, before it
// works on.
// Otherwise a provider that stops sending, or approvers who are away, hold every slot and no new chat is answered.

/** A run's claim on a slot, which it gives up while it only waits. */
export interface SlotLease {
  /** Gives the slot up (one waiter of the run's; the slot goes when every one of them waits). */
  leave(): void;
  /** Comes back from `leave`: resolves once the run holds a slot again. */
  back(): Promise<void>;
  /** Runs `wait` without the slot, then takes one again (also when `wait` fails). */
  away<T>(wait: () => Promise<T>): Promise<T>;
}

/** Bounds concurrent work. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Runs `task` when a slot is free; `task` may step away from it through the lease. */
  async run<T>(task: (lease: SlotLease) => Promise<T>): Promise<T> {
    await this.acquire();
    const lease = new Lease(
      () => this.acquire(true),
      () => this.release(),
    );
    try {
      return await task(lease);
    } finally {
      lease.end();
    }
  }

  // A run coming back from a wait goes ahead of runs not yet started: it holds work half done (a
  // model's answer to act on), and finishing it frees what it holds; behind a burst of new
  // messages it would wait for all of them, and every answer in flight would be late.
  private acquire(returning = false): Promise<void> {
    if (this.active < this.size) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => (returning ? this.waiting.unshift(resolve) : this.waiting.push(resolve)));
  }

  // A freed slot passes straight to the first waiter, so nobody arriving meanwhile takes it first.
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

/**
 * One run's lease. A run may wait on several things at once (parallel sub-agents streaming while a tool works), so
 * it counts its activities: the slot goes when all of them wait and comes back with the first that works again.
 * Once the run has ended, a late `back` (a stream closed after the run returned) takes nothing.
 */
class Lease implements SlotLease {
  private busy = 1;
  private held = true;
  private ended = false;
  private taking: Promise<void> | undefined;

  constructor(
    private readonly acquire: () => Promise<void>,
    private readonly release: () => void,
  ) {}

  leave(): void {
    if (this.ended || this.busy === 0) return;
    this.busy--;
    if (this.busy === 0 && this.held) {
      this.held = false;
      this.release();
    }
  }

  back(): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.busy++;
    if (this.held) return Promise.resolve();
    this.taking ??= this.acquire().then(() => {
      this.taking = undefined;
      if (this.ended || this.busy === 0) this.release();
      else this.held = true;
    });
    return this.taking;
  }

  async away<T>(wait: () => Promise<T>): Promise<T> {
    this.leave();
    try {
      return await wait();
    } finally {
      await this.back();
    }
  }

  end(): void {
    this.ended = true;
    if (this.held) {
      this.held = false;
      this.release();
    }
  }
}
