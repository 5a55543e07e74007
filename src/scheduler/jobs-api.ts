// The admin API for jobs, as an express Router mounted at `/jobs` of the admin API (behind the
// admin token):
//   GET /jobs · POST /jobs · GET|PATCH|DELETE /jobs/:id · POST /jobs/:id/run[?wait=1] (202, or the report)
//   · GET /jobs/:id/logs[?limit=N]
// Each job carries `nextRun`, its next run on the job's own wall clock (`2026-11-25 09:00 Europe/Berlin`,
// `disabled` or `never`), and `nextRunAt` (ISO, UTC, or null); a webhook job (`trigger: {webhook,
// secretEnv}` instead of `cron`) carries its `url` (a job holds its secret's variable name, never the secret).
// Errors are JSON `{error, field?}`: 400 invalid input, 404 unknown job, 409 already running.
import express, { type Request, type Response, type Router } from 'express';
import { BoxbotError, errorMessage } from '../core/errors.ts';
import type { JobRecord } from '../store/index.ts';
import { nextOccurrence, nextRunText } from './cron.ts';
import { JobValidationError } from './errors.ts';
import type { Scheduler } from './scheduler.ts';
import type { JobInput } from './types.ts';

type Handler = (req: Request<Record<string, string>>, res: Response) => Promise<void>;

function statusOf(e: unknown): number {
  if (e instanceof JobValidationError) return 400;
  if (!(e instanceof BoxbotError)) return 500;
  if (e.code === 'not-found') return 404;
  if (e.code === 'busy') return 409;
  if (e.code === 'invalid' || e.code === 'stopped') return e.code === 'stopped' ? 503 : 400;
  return 500;
}

const handle =
  (fn: Handler) =>
  async (req: Request<Record<string, string>>, res: Response): Promise<void> => {
    try {
      await fn(req, res);
    } catch (e) {
      const status = statusOf(e);
      res.status(status).json({
        error: status === 500 ? 'internal error' : errorMessage(e),
        ...(e instanceof JobValidationError ? { field: e.field } : {}),
      });
    }
  };

const body = (req: Request): Record<string, unknown> =>
  req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};

/** How the API shows jobs. */
export interface JobsApiOptions {
  /** The URL of webhook `name` (default: its path, `/hooks/<name>`). */
  hookUrl?: (name: string) => string;
}

/** The jobs routes over `scheduler`, relative to their mount point (main mounts them at `/admin/api/jobs`). */
export function jobsApi(scheduler: Scheduler, opts: JobsApiOptions = {}): Router {
  /** `job` with its next run (and a webhook job's URL), as the API shows it. */
  function shown(job: JobRecord): JobRecord & { nextRun: string; nextRunAt: string | null; url?: string } {
    const now = new Date();
    const at = job.enabled && job.cron ? nextOccurrence(job.cron, now, job.timezone) : undefined;
    const hook = job.trigger?.webhook;
    const url = hook ? (opts.hookUrl?.(hook) ?? `/hooks/${encodeURIComponent(hook)}`) : undefined;
    return { ...job, nextRun: nextRunText(job, now), nextRunAt: at?.toISOString() ?? null, ...(url ? { url } : {}) };
  }
  const r = express.Router();
  r.use(express.json({ limit: '64kb' }));
  r.get(
    '/',
    handle(async (_req, res) => void res.json({ jobs: (await scheduler.list()).map(shown) })),
  );
  r.post(
    '/',
    handle(
      async (req, res) =>
        void res.status(201).json({ job: shown(await scheduler.add(body(req) as unknown as JobInput)) }),
    ),
  );
  r.get(
    '/:id',
    handle(async (req, res) => {
      const job = await scheduler.get(req.params.id!);
      if (!job) return void res.status(404).json({ error: `no job "${req.params.id}"` });
      res.json({ job: shown(job) });
    }),
  );
  r.patch(
    '/:id',
    handle(
      async (req, res) =>
        void res.json({ job: shown(await scheduler.update(req.params.id!, body(req) as Partial<JobInput>)) }),
    ),
  );
  r.delete(
    '/:id',
    handle(async (req, res) => {
      if (!(await scheduler.remove(req.params.id!)))
        return void res.status(404).json({ error: `no job "${req.params.id}"` });
      res.json({ removed: req.params.id });
    }),
  );
  r.post(
    '/:id/run',
    handle(async (req, res) => {
      const { done } = await scheduler.runNow(req.params.id!);
      if (req.query.wait === '1' || req.query.wait === 'true') return void res.json(await done);
      res.status(202).json({ accepted: req.params.id });
    }),
  );
  r.get(
    '/:id/logs',
    handle(async (req, res) => {
      const limit = typeof req.query.limit === 'string' ? Number(req.query.limit) : undefined;
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
        return void res.status(400).json({ error: 'limit: expected a whole number', field: 'limit' });
      res.json({ logs: await scheduler.logs(req.params.id!, limit) });
    }),
  );
  return r;
}
