// Public names of the scheduler: the scheduler itself, job validation, the `schedule` tool for
// chat, the admin API router, and the helpers the CLI uses.

export { type SchedulerClock, systemClock, type TickTimers } from './clock.ts';
export { formatInZone, hasSeconds, isTimeZone, missedRun, nextOccurrence, nextRunText } from './cron.ts';
export { JobValidationError, SchedulerError, type SchedulerErrorCode } from './errors.ts';
export { jobInput, TRANSCRIPT_LIMITS, transcriptOf } from './job-prompt.ts';
export { jobsApi } from './jobs-api.ts';
export { runText, type WorkerRunResult } from './run-text.ts';
export { createScheduleTool, type ScheduleToolContext } from './schedule-tool.ts';
export { createScheduler, type Scheduler, type SchedulerOptions } from './scheduler.ts';
export { configuredTargetCheck } from './targets.ts';
export type {
  Deliver,
  JobInput,
  JobLogEntry,
  JobRecord,
  RunLogEntry,
  RunReport,
  RunTrigger,
  SchedulerEvent,
  TargetCheck,
} from './types.ts';
export { checkTarget, DEFAULT_JOB_TIMEOUT_MS, newJobId, validateCron, validateJobInput } from './validate.ts';
export { WORKER_FILE } from './worker-file.ts';
