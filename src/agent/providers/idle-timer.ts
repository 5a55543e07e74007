// The watchdog of one model request: it fires when the API has sent nothing for `ms`. The SDKs' only
// timeout is a total one (10 minutes by default), so without it a stream that stops sending holds its run
// until then; an answer that streams steadily for longer than `ms` never trips it. Node runs due timers
// before it reads sockets: after the event loop was blocked (a long synchronous task, a large import) the
// timer is due while data that came meanwhile is still unread, so its verdict waits one turn of the loop.

/** A timer that fires `onIdle` once, `ms` after the last `touch`, unless paused. */
export interface IdleTimer {
  /** Something arrived: the quiet period starts again. */
  touch(): void;
  /** The caller is not reading (it holds a part it was handed): silence now is not the API's. */
  pause(): void;
  /** Stops for good. */
  stop(): void;
}

/** Starts the timer at once (waiting for the response headers counts as silence too). */
export function startIdleTimer(ms: number, onIdle: () => void): IdleTimer {
  let timer: NodeJS.Timeout | undefined;
  let verdict: NodeJS.Immediate | undefined;
  let stopped = false;
  const clear = () => {
    if (timer) clearTimeout(timer);
    if (verdict) clearImmediate(verdict);
    timer = undefined;
    verdict = undefined;
  };
  const arm = () => {
    clear();
    if (stopped) return;
    timer = setTimeout(() => {
      // Immediates run after the loop's poll phase: data already there is read first, and its touch cancels this.
      verdict = setImmediate(() => {
        stopped = true;
        onIdle();
      });
      verdict.unref();
    }, ms);
    // The request itself keeps the process alive while it matters; the watchdog never should.
    timer.unref();
  };
  arm();
  return {
    touch: arm,
    pause: clear,
    stop() {
      stopped = true;
      clear();
    },
  };
}
