// The process's registered secret values, scrubbed from everything printed or logged. Kept apart
// from the logger so the CLI can redact its errors without loading pino.

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

/**
 * `text` with every secret value in `secrets` (raw or JSON-escaped) and anything shaped like a known key format
 * replaced.
 */
export function redactText(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  for (const v of secrets) {
    out = out.split(v).join('[redacted]');
    const escaped = JSON.stringify(v).slice(1, -1);
    if (escaped !== v) out = out.split(escaped).join('[redacted]');
  }
  return out.replace(/\b(sk|xox[abpe]|xapp)-[A-Za-z0-9-_]{6,}/g, '[redacted]');
}

/**
 * One line of `text` fit for a chat or a log: the first non-empty line, every secret value in
 * `secrets` replaced, anything shaped like a known key format too, at most 300 characters.
 */
export function redactLine(text: string, secrets: string[] = []): string {
  const line = (text.split('\n').find((l) => l.trim()) ?? '').trim();
  return redactText(line, secrets).slice(0, 300);
}
