// grammY's two failures → boxbot's: GrammyError ("Telegram said no", with error_code, description
// and retry_after) becomes AdapterApiError; HttpError (no usable answer) becomes
// AdapterNetworkError. Messages never carry the request URL, which holds the bot token.
import { GrammyError, HttpError } from 'grammy';
import { errorMessage } from '../../core/errors.ts';
import { AdapterApiError, AdapterError, AdapterNetworkError } from '../errors.ts';

/** Maps whatever a grammY call threw to an AdapterError; `token` is scrubbed from any text kept. */
export function toAdapterError(err: unknown, token: string): AdapterError {
  if (err instanceof AdapterError) return err;
  if (err instanceof GrammyError) {
    const retryAfter = err.parameters.retry_after;
    const retryAfterMs = typeof retryAfter === 'number' && retryAfter >= 0 ? retryAfter * 1000 : undefined;
    return new AdapterApiError('telegram', err.error_code, scrub(err.description, token), retryAfterMs);
  }
  if (err instanceof HttpError) {
    // The nested fetch error's message contains the URL (and so the token): keep only its code.
    const cause = err.error as { code?: unknown; type?: unknown; name?: unknown } | undefined;
    const why = [cause?.code, cause?.type, cause?.name].find(
      (v): v is string => typeof v === 'string' && v !== '' && v !== 'FetchError',
    );
    return new AdapterNetworkError('telegram', scrub(`${err.message}${why ? ` (${why})` : ''}`, token));
  }
  const message = errorMessage(err);
  return new AdapterNetworkError('telegram', scrub(message, token));
}

/** Removes the token from a text (defence in depth: nothing we log should contain it). */
export function scrub(text: string, token: string): string {
  return token ? text.split(token).join('<token>') : text;
}

/** Telegram's answer when an edit would change nothing; not a failure for boxbot. */
export function isNotModified(err: AdapterError): boolean {
  return err instanceof AdapterApiError && err.status === 400 && /message is not modified/i.test(err.description);
}

/** Telegram refused the HTML (`can't parse entities`): resend as plain text. */
export function isParseError(err: AdapterApiError): boolean {
  return (
    err.status === 400 &&
    /can't parse entities|unsupported start tag|can't find end (tag|of the entity)/i.test(err.description)
  );
}
