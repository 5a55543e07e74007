// Webhook deliveries already accepted, remembered for a window so that a replayed request (the
// same delivery id again, e.g. `X-GitHub-Delivery`) starts nothing. One document per hook
// (`hook-deliveries/<name>.json`): a busy hook's list never slows another hook's requests.
import { z } from 'zod';
import type { DocSpec, Documents } from './documents.ts';
import { encodeName } from './names.ts';

/** Delivery ids of webhook requests already accepted, per hook, each until it expires. */
export interface HookDeliveryStore {
  /**
   * Remembers delivery `id` of hook `hook` for `ttlMs`: true the first time, false while it is
   * remembered (a replay). True for exactly one caller across every process on the store.
   */
  claim(hook: string, id: string, ttlMs: number): Promise<boolean>;
  /** Forgets a claimed delivery (its run could not be started: the sender's retry is welcome). */
  release(hook: string, id: string): Promise<void>;
}

/** Deliveries one hook's document keeps at most (the newest); older ones are forgotten first. */
export const MAX_HOOK_DELIVERIES = 10_000;

const schema = z.object({ hook: z.string().min(1), expires: z.record(z.number()) }).passthrough();
type Doc = { hook: string; expires: Record<string, number> };

function spec(hook: string): DocSpec {
  return {
    path: `hook-deliveries/${encodeName(hook)}.json`,
    schema,
    check: (data) =>
      (data as Doc).hook === hook ? undefined : `holds deliveries of ${JSON.stringify((data as Doc).hook)}`,
  };
}

/** The deliveries of `doc` still remembered at `now`, newest last, at most `MAX_HOOK_DELIVERIES`. */
function live(doc: Doc | undefined, now: number): [string, number][] {
  const kept = Object.entries(doc?.expires ?? {}).filter(([, at]) => at > now);
  kept.sort((a, b) => a[1] - b[1]);
  return kept.slice(-MAX_HOOK_DELIVERIES);
}

/** Hook deliveries kept as documents (files backend). */
export function createHookDeliveries(docs: Documents, now: () => number): HookDeliveryStore {
  return {
    async claim(hook, id, ttlMs) {
      let won = false;
      await docs.update<Doc>(spec(hook), (cur) => {
        const at = now();
        const kept = live(cur, at);
        if (kept.some(([k]) => k === id)) return { hook, expires: Object.fromEntries(kept) };
        won = true;
        kept.push([id, at + ttlMs]);
        return { hook, expires: Object.fromEntries(kept.slice(-MAX_HOOK_DELIVERIES)) };
      });
      return won;
    },
    async release(hook, id) {
      await docs.update<Doc>(spec(hook), (cur) => {
        const kept = live(cur, now()).filter(([k]) => k !== id);
        return kept.length ? { hook, expires: Object.fromEntries(kept) } : undefined;
      });
    },
  };
}
