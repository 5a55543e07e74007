// HTTP mode: the `POST /webhooks/slack` route on the gateway's own server, for the Events API,
// slash commands and interactivity alike (point all three request URLs at it). Bolt checks the
// signature (401 and nothing delivered otherwise) and parses the body; url_verification and
// ssl_check are answered here, as Bolt's own receivers do; everything else goes through the App
// and is answered 200 (with Bolt's ack payload) only once the sink accepted it, so a failure
// becomes one of Slack's redeliveries.
import { type BufferedIncomingMessage, HTTPModuleFunctions, verifySlackRequest } from '@slack/bolt';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { AdapterRoute } from '../types.ts';
import type { DeliveryInfo } from './inbound.ts';
import type { Delivery } from './receiver.ts';

/** The default path of the request URLs on the gateway's server. */
export const DEFAULT_SLACK_EVENTS_PATH = '/webhooks/slack';

/** The route Slack posts events, slash commands and button presses to. */
export function slackEventsRoute(opts: {
  path?: string;
  signingSecret: string;
  logger: Logger;
  isOpen: () => boolean;
  onBody: (body: Record<string, unknown>, info: DeliveryInfo) => Promise<Delivery>;
}): AdapterRoute {
  return {
    method: 'POST',
    path: opts.path ?? DEFAULT_SLACK_EVENTS_PATH,
    async handle(req) {
      const contentType = (header(req.headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      const raw = req.rawBody.toString('utf8');
      // Slack's certificate check of slash command URLs is unsigned and carries nothing to deliver.
      if (contentType === 'application/x-www-form-urlencoded' && new URLSearchParams(raw).get('ssl_check') === '1')
        return text(200, '');
      try {
        verifySlackRequest({
          signingSecret: opts.signingSecret,
          body: raw,
          headers: {
            'x-slack-signature': header(req.headers, 'x-slack-signature') ?? '',
            'x-slack-request-timestamp': Number(header(req.headers, 'x-slack-request-timestamp')),
          },
        });
      } catch (e) {
        opts.logger.warn({ reason: errorMessage(e) }, 'refused an unsigned or stale request');
        return text(401, 'invalid request signature');
      }
      let body: unknown;
      try {
        // Bolt's parser reads only these two fields of the request (a `payload=` form is JSON inside).
        body = HTTPModuleFunctions.parseHTTPRequestBody({
          headers: { 'content-type': contentType },
          rawBody: req.rawBody,
        } as unknown as BufferedIncomingMessage);
      } catch {
        body = undefined;
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return text(400, 'expected a Slack body');
      const fields = body as Record<string, unknown>;
      if (fields.type === 'url_verification')
        return typeof fields.challenge === 'string' ? text(200, fields.challenge) : text(400, 'missing challenge');
      // Stopped: refuse so Slack keeps the event and redelivers it later.
      if (!opts.isOpen()) return text(503, 'not accepting events');
      const retry = header(req.headers, 'x-slack-retry-num');
      const reason = header(req.headers, 'x-slack-retry-reason');
      const info: DeliveryInfo = {
        via: 'http',
        ...(retry && /^\d+$/.test(retry) ? { retryNum: Number(retry) } : {}),
        ...(reason ? { retryReason: reason } : {}),
      };
      const delivery = await opts.onBody(fields, info);
      if (!delivery.ok) return text(500, 'not delivered');
      const answer = delivery.response;
      if (answer === undefined) return text(200, '');
      if (typeof answer === 'string') return text(200, answer);
      return {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(answer),
      };
    },
  };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  let v = headers[name];
  if (v === undefined) {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
    v = key === undefined ? undefined : headers[key];
  }
  return Array.isArray(v) ? v[0] : v;
}

function text(status: number, body: string): { status: number; headers: Record<string, string>; body: string } {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}
