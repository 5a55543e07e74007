// `boxbot start`'s life between the signals: SIGINT and SIGTERM are caught before the app starts,
// so a signal at any point (while it starts, or right after its banner) stops it gracefully within
// the shutdown deadline; caught only after the banner, one sent as the banner appeared ended the
// process at once (the default action), with nothing stopped. A second signal exits at once (130).
import type { Logger } from '../core/log.ts';
import { type StopSteps, stopTimeoutLine, stopWithin } from '../core/stop-steps.ts';

/** What runs between the signals. */
export interface Signalled<A extends { stop(steps: StopSteps): Promise<void> }> {
  /** Starts the app (the signals are caught already). */
  begin(): Promise<A>;
  /** The app is up and no stop was asked for meanwhile (prints the banner). */
  up(app: A): void;
  /** The app's shutdown deadline (shutdown.timeoutMs). */
  timeoutMs(app: A): number;
  log: Logger;
  /** Prints a line (`stopping…`). */
  say(line: string): void;
  /** Where the signals come from (the process; an emitter in tests). */
  signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
}

/** Starts the app, then stops it at the first SIGINT or SIGTERM; resolves with 0 once it has stopped. */
export async function untilSignalled<A extends { stop(steps: StopSteps): Promise<void> }>(
  s: Signalled<A>,
): Promise<number> {
  const signals = s.signals ?? process;
  let app: A | undefined;
  let stopping = false;
  let done!: () => void;
  const stopped = new Promise<void>((r) => (done = r));
  const shutDown = (a: A) => {
    const timeoutMs = s.timeoutMs(a);
    void stopWithin((steps) => a.stop(steps), timeoutMs).then((outcome) => {
      if (outcome.stopped) return done();
      // Whatever still runs would hold the process: it ends here. Accepted messages are in the store's
      // journal already and are answered at the next start.
      s.log.error({ scope: 'shutdown', parts: outcome.pending }, stopTimeoutLine(outcome.pending, timeoutMs));
      process.exit(1);
    });
  };
  const stop = () => {
    if (stopping) process.exit(130);
    stopping = true;
    s.say('stopping…');
    // While starting: the stop follows the start (a second signal still exits at once).
    if (app) shutDown(app);
  };
  const listen = (on: boolean) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) on ? signals.on(sig, stop) : signals.off(sig, stop);
  };
  listen(true);
  try {
    app = await s.begin();
  } catch (e) {
    listen(false); // nothing started: the error is reported and the process ends as before
    throw e;
  }
  if (stopping) shutDown(app);
  else s.up(app);
  await stopped;
  return 0;
}
