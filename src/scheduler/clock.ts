// Where the scheduler's time comes from. In production: the wall clock, and Bree's own cron
// timers firing the ticks. Tests pass a clock whose time they set and whose ticks they fire, so
// restart, overlap and delivery tests do not wait for real cron seconds. Either way a tick
// enters the scheduler through the call Bree's timers make (JobBree.run → the scheduler's tick).

/** Cron timers that replace Bree's: started when a job is scheduled, stopped when it is not. */
export interface TickTimers {
  /** Job `id` is scheduled: call `fire` at each of its occurrences. */
  start(id: string, fire: () => void): void;
  /** Job `id` (or, without an id, every job) is no longer scheduled. */
  stop(id?: string): void;
}

/** The scheduler's time source. */
export interface SchedulerClock {
  /** Now: run start and end stamps, job creation, and which occurrences a restart missed. */
  now(): Date;
  /** Replaces Bree's cron timers (tests); absent, Bree's timers fire the ticks. */
  timers?: TickTimers;
}

/** The wall clock with Bree's timers: what boxbot runs on. */
export const systemClock: SchedulerClock = { now: () => new Date() };
