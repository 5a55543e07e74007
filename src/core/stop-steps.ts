// A shutdown in named parts under one deadline. Each part (an adapter, the scheduler, the store)
// runs as a step, steps may hold steps of their own, and when the deadline passes the innermost
// parts still under way are named, so "the process hung on stop" becomes "the discord adapter did".

/** The parts of a stop begun and not yet finished. */
export interface StopSteps {
  /** Runs `work` as the part `name` (`discord adapter`); `work` gets the steps of this part's own parts. */
  run<T>(name: string, work: (inner: StopSteps) => Promise<T>): Promise<T>;
  /** The innermost parts still under way (a part whose own parts are all done counts itself), in start order. */
  pending(): string[];
}

interface Node {
  name: string;
  done: boolean;
  children: Node[];
}

function stepsOf(parent: Node): StopSteps {
  return {
    async run(name, work) {
      const node: Node = { name, done: false, children: [] };
      parent.children.push(node);
      try {
        return await work(stepsOf(node));
      } finally {
        node.done = true;
      }
    },
    pending: () => innermost(parent),
  };
}

function innermost(node: Node): string[] {
  return node.children
    .filter((c) => !c.done)
    .flatMap((c) => {
      const inner = innermost(c);
      return inner.length ? inner : [c.name];
    });
}

/** A fresh record of a stop's parts. */
export function createStopSteps(): StopSteps {
  return stepsOf({ name: '', done: false, children: [] });
}

/** What a bounded stop came to: done, or the parts still under way at the deadline. */
export type StopOutcome = { stopped: true } | { stopped: false; pending: string[] };

/**
 * Runs `stop` and resolves once it has finished or `timeoutMs` has passed, whichever is first; a stop
 * that failed counts as finished (its parts log their own failures). Example:
 * `const o = await stopWithin((steps) => app.stop(steps), 10_000); if (!o.stopped) exit(o.pending)`.
 */
export async function stopWithin(stop: (steps: StopSteps) => Promise<void>, timeoutMs: number): Promise<StopOutcome> {
  const steps = createStopSteps();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    // Not unref'd: a part parked on a promise nothing settles, once every handle has closed, would otherwise let
    // Node end the process with code 13 (an unsettled top-level await) before anything names it.
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  const done = stop(steps).then(
    () => 'done' as const,
    () => 'done' as const,
  );
  try {
    if ((await Promise.race([done, late])) === 'done') return { stopped: true };
    const pending = steps.pending();
    return { stopped: false, pending: pending.length ? pending : ['the stop'] };
  } finally {
    clearTimeout(timer);
  }
}

/** The line naming the parts `pending` of a stop past `timeoutMs`: `shutdown: discord adapter did not stop ...`. */
export function stopTimeoutLine(pending: string[], timeoutMs: number): string {
  const names =
    pending.length > 1 ? `${pending.slice(0, -1).join(', ')} and ${pending[pending.length - 1]}` : pending[0];
  return `shutdown: ${names} did not stop within ${timeoutMs / 1000} s; exiting`;
}

/** One part of a stop: the parts of one stage stop side by side, the stages in ascending order. */
export interface StopPart {
  stage: number;
  name: string;
  stop(inner: StopSteps): Promise<unknown>;
}

/** Stops `parts` stage by stage as steps of `steps`; a part that fails is reported to `failed` and the rest go on. */
export async function stopInStages(
  parts: readonly StopPart[],
  steps: StopSteps,
  failed: (name: string, e: unknown) => void,
): Promise<void> {
  for (const stage of [...new Set(parts.map((p) => p.stage))].sort((a, b) => a - b))
    await Promise.all(
      parts
        .filter((p) => p.stage === stage)
        .map((p) => steps.run(p.name, (inner) => p.stop(inner)).catch((e: unknown) => failed(p.name, e))),
    );
}
