// Public names of the scheduler: the scheduler itself, job validation, the `schedule` tool for
// chat, the admin API router, and the helpers the CLI uses.

export { type SchedulerClock, systemClock, type TickTimers } from './clock.ts';
export { formatInZone, hasSeconds, isTimeZone, missedRun, nextOccurrence, nextRunText } from './cron.ts';
export { JobValidationError, SchedulerError, type SchedulerErrorCode } from './errors.ts';
export { jobInput, TRANSCRIPT_LIMITS, transcriptOf } from './job-prompt.ts';
export { type JobsApiOptions, jobsApi } from './jobs-api.ts';
export { runText, type WorkerRunResult } from './run-text.ts';
export { createScheduleTool, type ScheduleToolContext } from './schedule-tool.ts';
export { createScheduler, type Scheduler, type SchedulerOptions } from './scheduler.ts';
export { configuredTargetCheck } from './targets.ts';
export type {
  Deliver,
  JobInput,
  JobLogEntry,
  JobRecord,
  RunEvent,
  RunLogEntry,
  RunNowOptions,
  RunReport,
  RunTrigger,
  SchedulerEvent,
  TargetCheck,
} from './types.ts';
export {
  checkTarget,
  checkTrigger,
  DEFAULT_JOB_TIMEOUT_MS,
  newJobId,
  validateCron,
  validateJobInput,
} from './validate.ts';
export { eventBlock, withEvent } from './webhook-event.ts';
export {
  createWebhookJournal,
  type WebhookJournal,
  type WebhookJournalOptions,
  webhookAnswerId,
} from './webhook-journal.ts';
export {
  createWebhookTrigger,
  DEFAULT_HOOK_MAX_BYTES,
  DEFAULT_REPLAY_WINDOW_MS,
  hookUrl,
  signatureFor,
  verifySignature,
  type WebhookAnswer,
  type WebhookRequest,
  type WebhookTriggerOptions,
} from './webhook-trigger.ts';
export { WORKER_FILE } from './worker-file.ts';
