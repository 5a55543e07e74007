// One AbortSignal per run that fires on the caller's cancel or on the total timeout, remembering
// which; and a race that stops waiting for work that ignores the signal (a running WASM call).
import { BoxbotError } from '../../core/errors.ts';

/** Thrown inside the loop when the run's signal fires; `why` tells cancel from timeout. */
export class RunAbortedError extends BoxbotError<'cancelled' | 'timeout'> {
  constructor(readonly why: 'cancelled' | 'timeout') {
    super(why, why === 'timeout' ? 'the run hit its total timeout' : 'the run was cancelled');
  }
}

/** The run's signal and how it ended. */
export interface RunSignal {
  signal: AbortSignal;
  /** Undefined while the run may go on. */
  reason(): 'cancelled' | 'timeout' | undefined;
  dispose(): void;
}

/**
 * A run's signal: a class, not closures, so a run makes one listener and one timer callback rather
 * than five functions (each also named at run time where the bundle keeps names).
 */
class RunSignalOf implements RunSignal {
  private readonly ctl = new AbortController();
  private why: 'cancelled' | 'timeout' | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onParent = () => this.abort('cancelled');
  constructor(
    private readonly parent: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ) {
    if (parent?.aborted) this.abort('cancelled');
    else parent?.addEventListener('abort', this.onParent, { once: true });
    this.timer =
      timeoutMs !== undefined && timeoutMs > 0 ? setTimeout(() => this.abort('timeout'), timeoutMs) : undefined;
  }
  get signal(): AbortSignal {
    return this.ctl.signal;
  }
  reason(): 'cancelled' | 'timeout' | undefined {
    return this.why;
  }
  dispose(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this.onParent);
  }
  private abort(w: 'cancelled' | 'timeout'): void {
    if (this.why) return;
    this.why = w;
    this.ctl.abort(new RunAbortedError(w));
  }
}

/** Combines the caller's signal with a total timeout. */
export function createRunSignal(parent: AbortSignal | undefined, timeoutMs: number | undefined): RunSignal {
  return new RunSignalOf(parent, timeoutMs);
}

/** Resolves like `p`, or rejects with the signal's reason as soon as it fires. */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
