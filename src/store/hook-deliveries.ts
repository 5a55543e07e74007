// Webhook deliveries already accepted, remembered for a window so that a replayed request (the
// same delivery id again, e.g. `X-GitHub-Delivery`) starts nothing. One document per hook
// (`hook-deliveries/<name>.json`): a busy hook's list never slows another hook's requests.
// The event a claim accepted is journaled in the same write, and dropped when its run has ended:
// a process that dies between the 202 and the end of the run finds it at its next start. A claim
// whose event has not run is kept past its window (its replays stay refused until it ran).
import { z } from 'zod';
import type { DocSpec, Documents } from './documents.ts';
import { encodeName } from './names.ts';

/** The run a claimed delivery starts: journaled with the claim until the run has ended. */
export interface HookEvent {
  jobId: string;
  /** The run's id (the 202's `run`; the job's run log entry carries it). */
  runId: string;
  /** The request body, as JSON text. */
  json: string;
  /** When it was accepted (ms since the epoch). */
  acceptedAt: number;
}

/** Delivery ids of webhook requests already accepted, per hook, each until it expires. */
export interface HookDeliveryStore {
  /**
   * Remembers delivery `id` of hook `hook` for `ttlMs`: true the first time, false while it is
   * remembered (a replay). True for exactly one caller across every process on the store.
   * With `event`, the event is journaled in the same write, until `finish`.
   */
  claim(hook: string, id: string, ttlMs: number, event?: HookEvent): Promise<boolean>;
  /** Forgets a claimed delivery (its run could not be started: the sender's retry is welcome). */
  release(hook: string, id: string): Promise<void>;
  /** The run of a claimed delivery has ended: its event is dropped, the claim stays for its window. */
  finish(hook: string, id: string): Promise<void>;
  /** The journaled events of `hook` whose runs have not ended, oldest first. */
  unfinished(hook: string): Promise<({ delivery: string } & HookEvent)[]>;
}

/** Deliveries one hook's document keeps at most (the newest); older ones are forgotten first. */
export const MAX_HOOK_DELIVERIES = 10_000;

const eventSchema = z.object({
  jobId: z.string().min(1),
  runId: z.string().min(1),
  json: z.string(),
  acceptedAt: z.number(),
});
const schema = z
  .object({ hook: z.string().min(1), expires: z.record(z.number()), events: z.record(eventSchema).optional() })
  .passthrough();
type Doc = { hook: string; expires: Record<string, number>; events?: Record<string, HookEvent> };

function spec(hook: string): DocSpec {
  return {
    path: `hook-deliveries/${encodeName(hook)}.json`,
    schema,
    check: (data) =>
      (data as Doc).hook === hook ? undefined : `holds deliveries of ${JSON.stringify((data as Doc).hook)}`,
  };
}

/**
 * The deliveries of `doc` still remembered at `now` (in their window, or with an event not yet
 * run), newest last, at most `MAX_HOOK_DELIVERIES` (an event not yet run is never dropped).
 */
function live(doc: Doc | undefined, now: number): [string, number][] {
  const events = doc?.events ?? {};
  const kept = Object.entries(doc?.expires ?? {}).filter(([id, at]) => at > now || id in events);
  kept.sort((a, b) => a[1] - b[1]);
  const over = kept.length - MAX_HOOK_DELIVERIES;
  return over > 0 ? kept.filter(([id], i) => i >= over || id in events) : kept;
}

/** The document holding `kept` and the events among them in `events`. */
function docOf(hook: string, kept: [string, number][], events: Record<string, HookEvent> = {}): Doc | undefined {
  if (!kept.length) return undefined;
  const still = Object.fromEntries(kept.filter(([id]) => id in events).map(([id]) => [id, events[id]!]));
  return { hook, expires: Object.fromEntries(kept), ...(Object.keys(still).length ? { events: still } : {}) };
}

/** Hook deliveries kept as documents (files backend). */
export function createHookDeliveries(docs: Documents, now: () => number): HookDeliveryStore {
  const change = (hook: string, edit: (kept: [string, number][], events: Record<string, HookEvent>) => void) =>
    docs.update<Doc>(spec(hook), (cur) => {
      const kept = live(cur, now());
      const events = { ...cur?.events };
      edit(kept, events);
      return docOf(hook, kept, events);
    });
  return {
    async claim(hook, id, ttlMs, event) {
      let won = false;
      await change(hook, (kept, events) => {
        if (kept.some(([k]) => k === id)) return;
        won = true;
        kept.push([id, now() + ttlMs]);
        if (event) events[id] = event;
      });
      return won;
    },
    async release(hook, id) {
      await change(hook, (kept, events) => {
        const i = kept.findIndex(([k]) => k === id);
        if (i >= 0) kept.splice(i, 1);
        delete events[id];
      });
    },
    async finish(hook, id) {
      await change(hook, (_kept, events) => {
        delete events[id];
      });
    },
    async unfinished(hook) {
      const doc = await docs.read<Doc>(spec(hook));
      return Object.entries(doc?.events ?? {})
        .map(([delivery, e]) => ({ delivery, ...e }))
        .sort((a, b) => a.acceptedAt - b.acceptedAt);
    },
  };
}
