// The webhook-delivery part of the store contract: every backend runs it (file-store.test.ts,
// memory-store.test.ts, postgres-store.test.ts). A delivery id is claimed once per hook for its
// window, across a restart; an expired or released one can be claimed again. An event journaled
// with its claim outlives a restart until its run is finished, and keeps its claim past the window.
import assert from 'node:assert/strict';
import type { StoreHarness } from './contract.ts';
import { harnessCases } from './harness-test.ts';

/** Runs the hook-delivery contract against `makeHarness`'s backend. */
export function hookDeliveriesContract(backend: string, makeHarness: () => Promise<StoreHarness>): void {
  const it = harnessCases(backend, 'hook deliveries', makeHarness);

  it('a delivery id is claimed once per hook, also after a restart', async (h) => {
    const s = h.open();
    assert.equal(await s.hookDeliveries.claim('github-push', 'd-1', 60_000), true);
    assert.equal(await s.hookDeliveries.claim('github-push', 'd-1', 60_000), false, 'a replay');
    assert.equal(await s.hookDeliveries.claim('deploys', 'd-1', 60_000), true, 'another hook has its own ids');
    const claims = await Promise.all([1, 2, 3, 4].map(() => s.hookDeliveries.claim('github-push', 'd-2', 60_000)));
    assert.deepEqual(claims.filter(Boolean).length, 1, 'concurrent claims: one wins');
    await s.close();
    const again = h.open();
    assert.equal(await again.hookDeliveries.claim('github-push', 'd-1', 60_000), false, 'remembered durably');
    await again.close();
  });

  it('an expired or released delivery can be claimed again', async (h) => {
    let now = Date.UTC(2026, 0, 1);
    const s = h.open({ now: () => now });
    assert.equal(await s.hookDeliveries.claim('github-push', 'old', 24 * 3600_000), true);
    assert.equal(await s.hookDeliveries.claim('github-push', 'kept', 48 * 3600_000), true);
    now += 24 * 3600_000 + 1;
    assert.equal(await s.hookDeliveries.claim('github-push', 'old', 24 * 3600_000), true, 'past its window');
    assert.equal(await s.hookDeliveries.claim('github-push', 'kept', 24 * 3600_000), false, 'still in its window');
    await s.hookDeliveries.release('github-push', 'kept');
    assert.equal(await s.hookDeliveries.claim('github-push', 'kept', 24 * 3600_000), true, 'released');
    await s.hookDeliveries.release('github-push', 'never-claimed');
    await s.close();
  });

  it('an event journaled with its claim outlives a restart until finished, and its claim the window', async (h) => {
    let now = Date.UTC(2026, 0, 1);
    const s = h.open({ now: () => now });
    const event = (runId: string) => ({ jobId: 'push-digest', runId, json: '{"ref":"main"}', acceptedAt: now });
    assert.equal(await s.hookDeliveries.claim('github-push', 'd-1', 3600_000, event('r-1')), true);
    now += 1;
    assert.equal(await s.hookDeliveries.claim('github-push', 'd-2', 3600_000, event('r-2')), true);
    assert.equal(await s.hookDeliveries.claim('github-push', 'd-2', 3600_000, event('r-x')), false, 'a replay');
    assert.equal(await s.hookDeliveries.claim('github-push', 'd-3', 3600_000), true, 'a claim without an event');
    await s.close();
    const again = h.open({ now: () => now });
    assert.deepEqual(
      (await again.hookDeliveries.unfinished('github-push')).map((e) => [e.delivery, e.runId, e.json]),
      [
        ['d-1', 'r-1', '{"ref":"main"}'],
        ['d-2', 'r-2', '{"ref":"main"}'],
      ],
    );
    assert.deepEqual(await again.hookDeliveries.unfinished('deploys'), []);
    now += 2 * 3600_000;
    assert.equal(await again.hookDeliveries.claim('github-push', 'd-1', 3600_000), false, 'unrun: still claimed');
    assert.equal(await again.hookDeliveries.claim('github-push', 'd-3', 3600_000), true, 'run: past its window');
    await again.hookDeliveries.finish('github-push', 'd-1');
    assert.deepEqual(
      (await again.hookDeliveries.unfinished('github-push')).map((e) => e.delivery),
      ['d-2'],
    );
    await again.hookDeliveries.release('github-push', 'd-2');
    assert.deepEqual(await again.hookDeliveries.unfinished('github-push'), [], 'a released claim has no event');
    await again.close();
  });
}
