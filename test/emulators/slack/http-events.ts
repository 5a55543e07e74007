// Emulated HTTP Events API delivery: POSTs event_callback bodies to the app's request URL,
// signed like Slack (X-Slack-Request-Timestamp, X-Slack-Signature = v0=HMAC-SHA256), and
// redelivers failures with X-Slack-Retry-Num / X-Slack-Retry-Reason on a retry schedule.
import { createHmac } from 'node:crypto';

/** The answer of one POST (status 0 when the connection failed). */
export interface HttpAttempt {
  status: number;
  body: string;
  retryNum: number;
}

/** One event handed to HTTP delivery, across attempts. */
export interface HttpDeliveryRecord {
  eventId?: string;
  body: Record<string, unknown>;
  /** Sent form-encoded (slash commands; interactivity as `payload=<json>`) instead of as JSON. */
  form?: Record<string, string>;
  attempts: HttpAttempt[];
  delivered: boolean;
}

/** Where and how events are posted. */
export interface HttpEventsOptions {
  signingSecret: string;
  /** Delays before each automatic redelivery after a failed attempt (Slack: immediately, 1 min, 5 min). Empty: none. */
  retryDelaysMs: number[];
  /** How long Slack waits for the answer (3 s); longer counts as http_timeout. */
  responseTimeoutMs: number;
}

/** Signs and posts events; keeps every attempt for assertions. */
export class HttpEvents {
  readonly deliveries: HttpDeliveryRecord[] = [];
  url: string | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly opts: HttpEventsOptions) {}

  /**
   * Delivers a body (JSON, or the `form` fields form-encoded); resolves with the first attempt
   * (automatic redeliveries follow on failure).
   */
  async deliver(body: Record<string, unknown>, form?: Record<string, string>): Promise<HttpDeliveryRecord> {
    const rec: HttpDeliveryRecord = {
      ...(typeof body.event_id === 'string' ? { eventId: body.event_id } : {}),
      body,
      ...(form ? { form } : {}),
      attempts: [],
      delivered: false,
    };
    this.deliveries.push(rec);
    await this.attempt(rec, 0, undefined, true);
    return rec;
  }

  /** Delivers `rec` again now, as Slack's retry number `retryNum` with `reason`. */
  async redeliver(rec: HttpDeliveryRecord, reason = 'http_timeout'): Promise<HttpAttempt> {
    return this.attempt(rec, rec.attempts.length, reason);
  }

  /**
   * Posts any body signed (or with the given headers overriding the signature): for url_verification and signature
   * tests.
   */
  async post(body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    const ts = String(Math.floor(Date.now() / 1000));
    return this.request(body, { ...this.sign(body, ts), ...headers });
  }

  /** The signature headers of `body` sent at `ts`. */
  sign(body: string, ts: string): Record<string, string> {
    const sig = `v0=${createHmac('sha256', this.opts.signingSecret).update(`v0:${ts}:${body}`).digest('hex')}`;
    return { 'x-slack-request-timestamp': ts, 'x-slack-signature': sig };
  }

  /** Cancels pending redeliveries. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  // `auto`: a failure schedules the next automatic redelivery from retryDelaysMs.
  private async attempt(
    rec: HttpDeliveryRecord,
    retryNum: number,
    reason: string | undefined,
    auto = false,
  ): Promise<HttpAttempt> {
    const text = rec.form ? new URLSearchParams(rec.form).toString() : JSON.stringify(rec.body);
    const ts = String(Math.floor(Date.now() / 1000));
    const headers = {
      ...(rec.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...this.sign(text, ts),
      ...(retryNum > 0
        ? { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': reason ?? 'http_error' }
        : {}),
    };
    const res = await this.request(text, headers);
    const attempt: HttpAttempt = { ...res, retryNum };
    rec.attempts.push(attempt);
    if (res.status >= 200 && res.status < 300) rec.delivered = true;
    const delay = this.opts.retryDelaysMs[retryNum];
    if (auto && !rec.delivered && delay !== undefined && !this.closed) {
      const why = res.status === 0 ? 'connection_failed' : res.status === -1 ? 'http_timeout' : 'http_error';
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (!this.closed && !rec.delivered) void this.attempt(rec, retryNum + 1, why, true);
      }, delay);
      timer.unref();
      this.timers.add(timer);
    }
    return attempt;
  }

  private async request(body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    if (!this.url) throw new Error('the Slack emulator has no events URL (setEventsUrl)');
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
          ...headers,
        },

        body,
        signal: AbortSignal.timeout(this.opts.responseTimeoutMs),
      });
      return { status: res.status, body: await res.text() };
    } catch (e) {
      return { status: (e as Error).name === 'TimeoutError' ? -1 : 0, body: String(e) };
    }
  }
}
