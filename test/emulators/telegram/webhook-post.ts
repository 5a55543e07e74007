// Webhook delivery as Telegram does it: one POST of the update as JSON, with the secret in
// X-Telegram-Bot-Api-Secret-Token; the receiver's HTTP status decides whether it is redelivered.
import { request } from 'node:http';

/** POSTs one update; resolves with the HTTP status (0 when there was no answer). */
export function postUpdate(hook: { url: string; secret?: string }, update: unknown): Promise<number> {
  const body = JSON.stringify(update);
  return new Promise((resolve) => {
    const req = request(
      hook.url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(hook.secret ? { 'x-telegram-bot-api-secret-token': hook.secret } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}
