// Bridges @slack/logger's interface to our pino logger. Slack's debug output includes raw
// payloads (message bodies), so debug is dropped and the libraries are told the level is INFO.
import { LogLevel, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from '../../log.ts';

/** A @slack/logger Logger writing to `log` (info → debug, warn → warn, error → error). */
export function slackLogger(log: Logger): SlackLogger {
  const line = (args: unknown[]): string => args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ');
  return {
    debug: () => undefined,
    info: (...args: unknown[]) => log.debug(line(args)),
    warn: (...args: unknown[]) => log.warn(line(args)),
    error: (...args: unknown[]) => log.error(line(args)),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}
