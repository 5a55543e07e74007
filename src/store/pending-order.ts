// The resume order of accepted messages, one rule for every backend: within a conversation, the
// platform's own order (replicas holding a message through a database outage save it whenever
// their retry comes, so a newer one can be saved first); across conversations, the save order.

import type { InboundMessage } from '../adapters/index.ts';
import { compareOrder, platformOrder } from '../adapters/index.ts';

/**
 * `list` (in save order) with each conversation's messages that carry a platform order sorted by
 * it, in the places that conversation's ordered messages held; the others keep theirs.
 */
export function inPlatformOrder<P extends { message: Pick<InboundMessage, 'order' | 'conversationKey'> }>(
  list: P[],
): P[] {
  const slots = new Map<string, number[]>();
  list.forEach((p, i) => {
    const order = p.message.order;
    if (order === undefined || platformOrder(order) === undefined) return;
    const key = p.message.conversationKey;
    const at = slots.get(key);
    if (at) at.push(i);
    else slots.set(key, [i]);
  });
  const out = [...list];
  for (const at of slots.values()) {
    if (at.length < 2) continue;
    const sorted = at.map((i) => list[i]!).sort((a, b) => compareOrder(a.message.order!, b.message.order!));
    at.forEach((i, n) => {
      out[i] = sorted[n]!;
    });
  }
  return out;
}
