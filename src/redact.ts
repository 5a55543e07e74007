// The process's registered secret values, scrubbed from everything printed or logged. Kept apart
// from the logger so the CLI can redact its errors without loading pino.
import { redactText } from './config/env.ts';

/** The secret values of this process (or worker thread): no log line or printed error contains them. */
const secrets = new Set<string>();

/**
 * Adds secret values (secretValues() of the config's secrets) to scrub from every log line and
 * printed error of this process or thread. Called where secrets are read: the gateway, the CLI,
 * a job's worker. Loggers made before the call are covered too (the check runs at write time).
 */
export function registerSecrets(values: Iterable<string>): void {
  for (const v of values) if (v) secrets.add(v);
}

/** `text` with the registered secrets (and known key formats) replaced: for anything printed. */
export function redactSecrets(text: string): string {
  return redactText(text, secrets);
}
