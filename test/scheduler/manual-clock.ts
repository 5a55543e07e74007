// A scheduler clock for tests: its time is set by hand and each job's cron tick is fired on
// demand, through the same path as Bree's timers (so no test waits for a real cron second).
import type { SchedulerClock, TickTimers } from '../../src/scheduler/index.ts';

/** Time that moves only when told; ticks fired by `tick(jobId)`. */
export class ManualClock implements SchedulerClock {
  private ms: number;
  /** The tick of every job the scheduler has scheduled (enabled, not removed, not stopped). */
  private readonly scheduled = new Map<string, () => void>();

  constructor(start: string | Date) {
    this.ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  /** Moves the time to `to` (an ISO string or a Date); fires nothing. */
  set(to: string | Date): void {
    this.ms = new Date(to).getTime();
  }

  readonly timers: TickTimers = {
    start: (id, fire) => void this.scheduled.set(id, fire),
    stop: (id) => (id === undefined ? this.scheduled.clear() : void this.scheduled.delete(id)),
  };

  /** Whether job `id` has a running timer. */
  isScheduled(id: string): boolean {
    return this.scheduled.has(id);
  }

  /** Fires job `id`'s cron tick now, as its timer would; throws when the job has no timer. */
  tick(id: string): void {
    const fire = this.scheduled.get(id);
    if (!fire) throw new Error(`job ${id} is not scheduled (disabled, removed or stopped)`);
    fire();
  }
}
