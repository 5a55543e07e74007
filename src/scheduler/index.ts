// Public names of the scheduler: the scheduler itself, job validation, the `schedule` tool for
// chat, the admin API router, and the helpers the CLI uses.
export { createScheduler, type Scheduler, type SchedulerOptions } from './scheduler.ts';
export { systemClock, type SchedulerClock, type TickTimers } from './clock.ts';
export { JobValidationError, SchedulerError, type SchedulerErrorCode } from './errors.ts';
export { validateJobInput, validateCron, checkTarget, newJobId, DEFAULT_JOB_TIMEOUT_MS } from './validate.ts';
export { missedRun, nextOccurrence, hasSeconds, isTimeZone } from './cron.ts';
export { transcriptOf, jobInput, TRANSCRIPT_LIMITS } from './job-prompt.ts';
export { runText, type WorkerRunResult } from './run-text.ts';
export { createScheduleTool, type ScheduleToolContext } from './schedule-tool.ts';
export { jobsApi } from './jobs-api.ts';
export { configuredTargetCheck } from './targets.ts';
export { WORKER_FILE } from './worker-file.ts';
export type { Deliver, JobInput, JobLogEntry, JobRecord, RunLogEntry, RunReport, RunTrigger, SchedulerEvent, TargetCheck } from './types.ts';
