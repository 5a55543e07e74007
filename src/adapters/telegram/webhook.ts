// Webhook mode: the route Telegram POSTs updates to. The X-Telegram-Bot-Api-Secret-Token header
// must equal the secret given to setWebhook (constant-time compare); anything else is 401 and
// never reaches the sink. A non-2xx answer makes Telegram redeliver the update later.
import { TELEGRAM_WEBHOOK_SECRET_RULE } from '../../config/channels.ts';
import { constantTimeEqual } from '../../core/constant-time-equal.ts';
import type { Logger } from '../../core/log.ts';
import type { AdapterRoute, IntakeOptions } from '../types.ts';

/** The path the gateway serves Telegram webhooks on. */
export const TELEGRAM_WEBHOOK_PATH = '/webhooks/telegram';

/** Telegram's rule for secret_token (the config checks it too, naming TELEGRAM_WEBHOOK_SECRET). */
export const WEBHOOK_SECRET = TELEGRAM_WEBHOOK_SECRET_RULE;

/** What the route calls: whether the adapter runs, and the one update entry point. */
export interface WebhookHandler {
  secret: string;
  log: Logger;
  running(): boolean;
  /** Rejects when the sink did not accept the update (Telegram then retries). */
  handleUpdate(update: unknown, intake: IntakeOptions): Promise<void>;
}

/** The `POST /webhooks/telegram` route. */
export function webhookRoute(h: WebhookHandler): AdapterRoute {
  return {
    method: 'POST',
    path: TELEGRAM_WEBHOOK_PATH,
    async handle(req) {
      const given = header(req.headers, 'x-telegram-bot-api-secret-token');
      if (given === undefined || !constantTimeEqual(given, h.secret)) {
        h.log.warn('telegram webhook request with a wrong or missing secret token refused');
        return { status: 401, body: 'unauthorized' };
      }
      if (!h.running()) return { status: 503, body: 'not running' };
      let update: unknown;
      try {
        update = JSON.parse(req.rawBody.toString('utf8'));
      } catch {
        h.log.warn('telegram webhook body is not JSON; dropped');
        return { status: 400, body: 'bad json' };
      }
      try {
        // Telegram redelivers a refused update: a failing store refuses it at once rather than
        // hold the request (held, copies pile up on every replica as Telegram retries).
        await h.handleUpdate(update, { redelivers: true });
      } catch {
        return { status: 500, body: 'not accepted' };
      }
      return { status: 200 };
    },
  };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}
