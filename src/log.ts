// The one logger (pino). Child loggers per scope (`sandbox`, `tools`, `adapter:telegram`);
// secrets and message bodies are redacted unless verbose logging is on.
import { destination, pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line (tokens, keys, message bodies, tool inputs). */
const REDACT = [
  '*.token', '*.apiKey', '*.authorization', '*.password', '*.secret',
  'headers.authorization', 'headers.cookie', '*.headers.authorization',
  'text', '*.text', 'content', '*.content', 'input', '*.input', 'prompt', '*.prompt',
];

/** Creates the root logger; `verbose` keeps message bodies (never secrets). */
export function createLogger(opts: { level?: string; verbose?: boolean; destination?: NodeJS.WritableStream } = {}): Logger {
  const paths = opts.verbose ? REDACT.filter((p) => !/text|content|input|prompt/.test(p)) : REDACT;
  return pino(
    { level: opts.level ?? 'info', redact: { paths, censor: '[redacted]' }, base: undefined },
    (opts.destination as DestinationStream | undefined) ?? destination(2),
  );
}

/** A logger that drops everything (tests, one-shot CLI commands). */
export const silentLogger: Logger = pino({ level: 'silent' });
