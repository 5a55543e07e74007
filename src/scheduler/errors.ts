// The scheduler's errors: a job refused by validation (naming the field) and operational
// failures (unknown job, stopped scheduler).
import { BoxbotError } from '../core/errors.ts';

/** A job definition that cannot be used; `field` names the offending field. */
export class JobValidationError extends BoxbotError<'invalid-job'> {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super('invalid-job', `${field}: ${reason}`);
  }
}

/** Codes of SchedulerError. */
export type SchedulerErrorCode = 'not-found' | 'stopped' | 'busy';

/** An operation on jobs that could not be done (unknown id, scheduler stopped, run skipped). */
export class SchedulerError extends BoxbotError<SchedulerErrorCode> {
  constructor(code: SchedulerErrorCode, message: string) {
    super(code, message);
  }
}
