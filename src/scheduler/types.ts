// The scheduler's public shapes: what a caller gives to create a job, what a run reports,
// and the events a scheduler emits while it works.
import type { JobLogEntry, JobPolicy, JobRecord } from '../store/index.ts';

/** A job as callers define it (CLI, admin API, the `schedule` tool); defaults fill the rest. */
export interface JobInput {
  name: string;
  /** 5 fields (minute hour day month weekday) or 6 with seconds first; absent when `trigger` starts the job. */
  cron?: string;
  /**
   * Instead of a cron: a signed `POST /hooks/<webhook>` starts a run, its body in the prompt as
   * `{{event}}` (see webhook-trigger.ts); the HMAC secret is read from the variable `secretEnv`.
   */
  trigger?: { webhook: string; secretEnv: string };
  prompt: string;
  /** The conversation key the result is posted to. */
  target: string;
  /** IANA time zone (default: the machine's). */
  timezone?: string;
  /** `provider/model` (default: the configured model). */
  model?: string;
  /** Default `read-only`. */
  access?: string;
  /** Whole run limit in ms (default 300,000). */
  timeoutMs?: number;
  budgetUsd?: number;
  enabled?: boolean;
  /** What a tick does while the previous run is still going (default `skip`). */
  overlap?: string;
  /** The creating conversation's policy (the `schedule` tool sets it); every run is narrowed to it. */
  policy?: JobPolicy;
  /** Who creates or edits the job (`<platform>:<userId>`); its runs count toward that user's daily budget. */
  createdBy?: string;
  /** What untrusted content the run that created it had read: its prompt may carry it (approvals.afterUntrusted). */
  untrusted?: string;
}

/** Why a run happened. */
export type RunTrigger = 'schedule' | 'catch-up' | 'manual' | 'webhook';

/** A run log entry as the scheduler writes it (the store keeps the extra `trigger` and `runId`). */
export type RunLogEntry = JobLogEntry & { trigger: RunTrigger; runId?: string };

/** A webhook request's body for the run it starts (`{{event}}`), already checked and capped. */
export interface RunEvent {
  /** The hook's name (`/hooks/<hook>`). */
  hook: string;
  /** The request body as JSON text. */
  json: string;
  /** The sender's delivery id (`X-GitHub-Delivery`, `X-Boxbot-Delivery`). */
  delivery: string;
}

/** How `runNow` is asked: by hand (default), or by a webhook with its event. */
export type RunNowOptions = { trigger?: 'manual' } | { trigger: 'webhook'; event: RunEvent; runId: string };

/** What `runNow` resolves with: the log entry and the text that was (or would have been) posted. */
export interface RunReport {
  entry: RunLogEntry;
  text: string;
  /** Whether the run failed (then `text` is the failure notice). */
  failed: boolean;
}

/** What a scheduler reports while it works (tests and metrics listen). */
export type SchedulerEvent =
  | { type: 'run-start'; jobId: string; trigger: RunTrigger; startedAt: string }
  | { type: 'run-end'; jobId: string; report: RunReport }
  /** A tick found the previous run still going and overlap is `skip`. */
  | { type: 'skipped'; jobId: string }
  /** A tick found the previous run still going and was queued behind it. */
  | { type: 'queued'; jobId: string; depth: number }
  /** The jobs in the store were (re)loaded; `caughtUp` got a catch-up run for a missed occurrence. */
  | { type: 'synced'; jobIds: string[]; caughtUp: string[] };

/**
 * Delivers a text to a conversation (the gateway's `post`) as outbox entry `id`; resolves with
 * platform message ids. `queued` runs once the entry is durable, before anything is sent.
 */
export type Deliver = (
  conversationKey: string,
  text: string,
  id: string,
  queued?: () => Promise<void>,
) => Promise<string[]>;

/** Says whether a conversation can receive posts: true, or a reason why not. */
export type TargetCheck = (conversationKey: string) => true | string;

export type { JobLogEntry, JobPolicy, JobRecord };
