// The one logger (pino). Child loggers per scope (`sandbox`, `tools`, `adapter:telegram`);
// secrets and message bodies are redacted unless verbose logging is on. Secret values are
// scrubbed from every finished line at the destination, so an error message, a stack or a
// provider's echoed request that carries a key never reaches the log, whatever field it is in.
// On a terminal lines are human (log-format.ts); piped or redirected they stay JSON.
import { type DestinationStream, destination, type Logger, pino } from 'pino';
import { prettyLine } from './log-format.ts';
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

/**
 * Wraps a log destination so every line is scrubbed of the registered secrets; `pretty` turns
 * it into a human line first, so the scrub sees exactly what is written.
 */
function redacting(dest: DestinationStream | NodeJS.WritableStream, pretty: boolean): DestinationStream {
  return { write: (line: string) => void dest.write(redactSecrets(pretty ? prettyLine(line) : line)) };
}

/** Options of createLogger. */
export interface LoggerOptions {
  level?: string;
  /** Keep message bodies (never secrets). */
  verbose?: boolean;
  /** Default: stderr. */
  destination?: NodeJS.WritableStream;
  /** Human lines instead of JSON; default: when the destination is a terminal. */
  pretty?: boolean;
}

/** Marks a logger (and, through the prototype chain, its children) as writing human lines. */
const PRETTY = Symbol('boxbot.log.pretty');

/** Creates the root logger: JSON lines, or human ones on a terminal. */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const paths = opts.verbose ? REDACT.filter((p) => !/text|content|input|prompt/.test(p)) : REDACT;
  const dest = opts.destination ?? destination(2);
  const isTTY = opts.destination ? (opts.destination as { isTTY?: boolean }).isTTY === true : process.stderr.isTTY;
  const pretty = opts.pretty ?? isTTY === true;
  const log = pino(
    { level: opts.level ?? 'info', redact: { paths, censor: '[redacted]' }, base: undefined },
    redacting(dest, pretty),
  );
  (log as Logger & { [PRETTY]?: boolean })[PRETTY] = pretty;
  return log;
}

/**
 * Whether `log` (or the root it is a child of) writes human lines: a worker thread, whose stderr
 * is never a terminal, is told so and writes lines like its parent's.
 */
export function isPretty(log: Logger): boolean {
  return (log as Logger & { [PRETTY]?: boolean })[PRETTY] === true;
}

/** A logger that drops everything (tests, one-shot CLI commands). */
export const silentLogger: Logger = pino({ level: 'silent' });
