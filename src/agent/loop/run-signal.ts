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

/** Combines the caller's signal with a total timeout. */
export function createRunSignal(parent: AbortSignal | undefined, timeoutMs: number | undefined): RunSignal {
  const ctl = new AbortController();
  let why: 'cancelled' | 'timeout' | undefined;
  const abort = (w: 'cancelled' | 'timeout') => {
    if (why) return;
    why = w;
    ctl.abort(new RunAbortedError(w));
  };
  const onParent = () => abort('cancelled');
  if (parent?.aborted) onParent();
  else parent?.addEventListener('abort', onParent, { once: true });
  const timer = timeoutMs !== undefined && timeoutMs > 0 ? setTimeout(() => abort('timeout'), timeoutMs) : undefined;
  return {
    signal: ctl.signal,
    reason: () => why,
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
  };
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
