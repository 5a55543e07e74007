// Webhook requests that start jobs: `POST /hooks/<name>` is checked here (size, the job, its
// HMAC-SHA256 signature, the delivery id) and, if all holds, starts one run of the job with the
// body as its event. Nothing is started for a request refused. A delivery is claimed in the store
// before the run starts, so a replay (or a second replica getting the same delivery) is a 409,
// and a claim whose run could not start is given back, so the sender's retry is welcome. The
// event is journaled with the claim (webhook-journal.ts): a 202 is kept even through a crash.
// The secret is read by the variable the job names, at each request, and never logged or shown.
// Example: const handle = createWebhookTrigger({ jobs: store.jobs, deliveries: store.hookDeliveries,
//   runNow: scheduler.runNow, secret: (name) => secrets[name], maxBytes: 262_144, replayWindowMs: 86_400_000 });
import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { publicBaseUrl } from '../config/public-url.ts';
import { constantTimeEqual } from '../core/constant-time-equal.ts';
import { BoxbotError, errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import type { HookDeliveryStore, JobRecord, JobStore } from '../store/index.ts';
import type { Scheduler } from './scheduler.ts';
import { createWebhookJournal, type WebhookJournal } from './webhook-journal.ts';

/** Default largest body a hook takes (256 KiB). */
export const DEFAULT_HOOK_MAX_BYTES = 256 * 1024;
/** Default time a delivery id is remembered (24 h): the same id again within it is a replay. */
export const DEFAULT_REPLAY_WINDOW_MS = 24 * 3600_000;

/** Signature headers, GitHub's first: both are `sha256=<hex HMAC-SHA256 of the raw body>`. */
const SIGNATURE_HEADERS = ['x-hub-signature-256', 'x-boxbot-signature-256'] as const;
/** Delivery id headers: the sender's id of this delivery, the same on its retries. */
const DELIVERY_HEADERS = ['x-github-delivery', 'x-boxbot-delivery'] as const;
const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** One request to `/hooks/<hook>`, as the HTTP server got it. */
export interface WebhookRequest {
  hook: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

/** The answer to send: status and a JSON body. */
export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** What the webhook trigger needs. */
export interface WebhookTriggerOptions {
  /** Where the webhook jobs are found (by `trigger.webhook`). */
  jobs: Pick<JobStore, 'list'>;
  deliveries: HookDeliveryStore;
  runNow: Scheduler['runNow'];
  /** Starts the claimed events' runs (default: a journal over `deliveries` and `runNow` alone). */
  journal?: WebhookJournal;
  /** The value of environment variable `name` (unset or empty: undefined). */
  secret(name: string): string | undefined;
  maxBytes?: number;
  replayWindowMs?: number;
  log?: Logger;
  /** A new run id (tests). */
  newRunId?: () => string;
}

const header = (headers: IncomingHttpHeaders, names: readonly string[]): string | undefined => {
  for (const n of names) {
    const v = headers[n];
    const one = Array.isArray(v) ? v[0] : v;
    if (one) return one.trim();
  }
  return undefined;
};

/**
 * Where a hook is reached: under `http.publicUrl` when set, else the server's own address.
 * Example: hookUrl({ host: '127.0.0.1', port: 8787 }, 'github-push') → 'http://127.0.0.1:8787/hooks/github-push'
 */
export function hookUrl(http: { host: string; port: number; publicUrl?: string | undefined }, hook: string): string {
  return `${publicBaseUrl(http)}/hooks/${encodeURIComponent(hook)}`;
}

/** The signature header's value to expect for `body` under `secret`: `sha256=<hex>`. */
export function signatureFor(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * True when `given` (a signature header, `sha256=<hex>`, as GitHub's X-Hub-Signature-256) is the
 * HMAC-SHA256 of `body` under `secret`; compared in constant time.
 */
export function verifySignature(secret: string, body: Buffer, given: string | undefined): boolean {
  if (!given || !/^sha256=[0-9a-fA-F]{64}$/.test(given)) return false;
  return constantTimeEqual(`sha256=${given.slice(7).toLowerCase()}`, signatureFor(secret, body));
}

const answer = (status: number, error: string, headers?: Record<string, string>): WebhookAnswer => ({
  status,
  body: { error },
  ...(headers ? { headers } : {}),
});

/** The handler of `POST /hooks/<name>`; it never throws (a store failure is a 500 answer). */
export function createWebhookTrigger(o: WebhookTriggerOptions): (req: WebhookRequest) => Promise<WebhookAnswer> {
  const log = o.log ?? silentLogger;
  const maxBytes = o.maxBytes ?? DEFAULT_HOOK_MAX_BYTES;
  const windowMs = o.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS;
  const newRunId = o.newRunId ?? randomUUID;
  const journal =
    o.journal ??
    createWebhookJournal({
      jobs: { list: o.jobs.list, logs: async () => [] },
      deliveries: o.deliveries,
      runNow: o.runNow,
      log,
    });

  async function handle(req: WebhookRequest): Promise<WebhookAnswer> {
    const { hook } = req;
    if (req.rawBody.length > maxBytes)
      return answer(413, `the body is ${req.rawBody.length} bytes; this hook takes at most ${maxBytes}`);
    const job: JobRecord | undefined = (await o.jobs.list()).find((j) => j.trigger?.webhook === hook);
    if (!job?.trigger) return answer(404, `no webhook "${hook}"`);
    const secret = o.secret(job.trigger.secretEnv);
    if (!secret) {
      log.warn(
        { hook, job: job.id, variable: job.trigger.secretEnv },
        'webhook refused: its secret variable is not set',
      );
      return answer(503, 'this hook has no secret set on the server; nothing was started');
    }
    if (!verifySignature(secret, req.rawBody, header(req.headers, SIGNATURE_HEADERS))) {
      log.warn({ hook, job: job.id }, 'webhook refused: unsigned or badly signed');
      return answer(401, 'missing or wrong signature: expected X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body>');
    }
    if (!job.enabled) return answer(409, `the job of hook "${hook}" (${job.id}) is disabled; nothing was started`);
    const delivery = header(req.headers, DELIVERY_HEADERS);
    if (!delivery || !DELIVERY_ID.test(delivery))
      return answer(
        400,
        'expected a delivery id (X-GitHub-Delivery or X-Boxbot-Delivery: 1-128 of A-Z a-z 0-9 . _ : -)',
      );
    let json: string;
    try {
      json = JSON.stringify(JSON.parse(req.rawBody.toString('utf8')));
    } catch {
      return answer(400, 'expected a JSON body (GitHub: content type application/json)');
    }
    const runId = newRunId();
    const event = { jobId: job.id, runId, json, acceptedAt: Date.now() };
    if (!(await o.deliveries.claim(hook, delivery, windowMs, event))) {
      log.info({ hook, job: job.id, delivery }, 'webhook refused: a replay of a delivery already accepted');
      return answer(409, `delivery ${delivery} was already accepted; nothing was started`);
    }
    try {
      await journal.start(hook, delivery, event);
    } catch (e) {
      // Nothing started: the delivery may come again.
      await o.deliveries
        .release(hook, delivery)
        .catch((err: unknown) => log.warn({ hook, err: errorMessage(err) }, 'webhook delivery not released'));
      const code = e instanceof BoxbotError ? e.code : undefined;
      log.warn({ hook, job: job.id, delivery, err: errorMessage(e) }, 'webhook run not started');
      if (code === 'busy') return answer(429, `${errorMessage(e)}; try again later`, { 'retry-after': '60' });
      if (code === 'not-found') return answer(404, `no webhook "${hook}"`);
      if (code === 'stopped') return answer(503, 'boxbot is stopping; try again later');
      throw e;
    }
    log.info({ hook, job: job.id, delivery, run: runId }, 'webhook accepted: run started');
    return { status: 202, body: { accepted: true, job: job.id, run: runId, delivery } };
  }

  return async (req) => {
    try {
      return await handle(req);
    } catch (e) {
      log.error({ hook: req.hook, err: errorMessage(e) }, 'webhook failed');
      return answer(500, 'internal error; nothing was started');
    }
  };
}
