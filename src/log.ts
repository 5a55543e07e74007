// The one logger (pino). Child loggers per scope (`sandbox`, `tools`, `adapter:telegram`);
// secrets and message bodies are redacted unless verbose logging is on. Secret values are
// scrubbed from every finished line at the destination, so an error message, a stack or a
// provider's echoed request that carries a key never reaches the log, whatever field it is in.
import { type DestinationStream, destination, type Logger, pino } from 'pino';
import { redactSecrets } from './redact.ts';

export { redactSecrets, registerSecrets } from './redact.ts';

export type { Logger };

/** Paths whose values never reach a log line (tokens, keys, message bodies, tool inputs). */
const REDACT = [
  '*.token',
  '*.apiKey',
  '*.authorization',
  '*.password',
  '*.secret',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  'text',
  '*.text',
  'content',
  '*.content',
  'input',
  '*.input',
  'prompt',
  '*.prompt',
];

/** Wraps a log destination so every line is scrubbed of the registered secrets. */
function redacting(dest: DestinationStream | NodeJS.WritableStream): DestinationStream {
  return { write: (line: string) => void dest.write(redactSecrets(line)) };
}

/** Creates the root logger; `verbose` keeps message bodies (never secrets). */
export function createLogger(
  opts: { level?: string; verbose?: boolean; destination?: NodeJS.WritableStream } = {},
): Logger {
  const paths = opts.verbose ? REDACT.filter((p) => !/text|content|input|prompt/.test(p)) : REDACT;
  return pino(
    { level: opts.level ?? 'info', redact: { paths, censor: '[redacted]' }, base: undefined },
    redacting(opts.destination ?? destination(2)),
  );
}

/** A logger that drops everything (tests, one-shot CLI commands). */
export const silentLogger: Logger = pino({ level: 'silent' });
