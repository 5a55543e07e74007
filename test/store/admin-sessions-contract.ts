// The dashboard sign-in part of the store contract: every backend runs it (file-store.test.ts,
// memory-store.test.ts, postgres-store.test.ts). Sessions are found by their id's hash, end when
// idle or past their age, keep at most the newest N, survive a restart and are seen by a second
// store on the same data (a replica); failed sign-ins count per address within a window, shared
// the same way, concurrent failures each counted once.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { StoreError } from '../../src/store/index.ts';
import type { StoreHarness } from './contract.ts';
import { harnessCases } from './harness-test.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Runs the dashboard sign-in contract against `makeHarness`'s backend. */
export function adminSessionsContract(backend: string, makeHarness: () => Promise<StoreHarness>): void {
  const it = harnessCases(backend, 'admin sessions', makeHarness);
  const t0 = Date.UTC(2026, 0, 1);
  const idle = 30 * 60_000;
  const session = (id: string, at: number, maxAge = 8 * 3600_000) => ({
    idHash: sha(id),
    csrf: `csrf-${id}-0123456789`,
    createdAt: at,
    lastUsedAt: at,
    expiresAt: at + maxAge,
  });

  it('a session is found by its hash, used, ended on sign-out; kept across a restart, seen by a replica', async (h) => {
    let now = t0;
    const s = h.open({ now: () => now });
    await s.adminSessions.create(session('one', now), 10);
    await s.adminSessions.create(session('two', now), 10);
    assert.equal((await s.adminSessions.use(sha('one'), idle))?.csrf, 'csrf-one-0123456789');
    assert.equal(await s.adminSessions.use(sha('nope'), idle), undefined, 'unknown');
    assert.equal(await s.adminSessions.use('not-a-hash', idle), undefined, 'malformed');
    assert.equal(await s.adminSessions.count(), 2);
    await s.close();
    const again = h.open({ now: () => now });
    const replica = h.open({ now: () => now });
    now += 10 * 60_000;
    assert.equal((await again.adminSessions.use(sha('one'), idle))?.lastUsedAt, now, 'kept, and its use written');
    assert.equal(await replica.adminSessions.remove(sha('one')), true, 'a replica signs it out');
    assert.equal(await replica.adminSessions.remove(sha('one')), false, 'already ended');
    assert.equal(await again.adminSessions.use(sha('one'), idle), undefined, 'ended for every replica');
    assert.equal((await replica.adminSessions.use(sha('two'), idle))?.csrf, 'csrf-two-0123456789');
    await again.close();
    await replica.close();
  });

  it('a session ends when idle past the limit and past its age however used; the oldest go past the cap', async (h) => {
    let now = t0;
    const s = h.open({ now: () => now });
    await s.adminSessions.create(session('busy', now, 3 * idle), 10);
    await s.adminSessions.create(session('idle', now), 10);
    for (let i = 0; i < 3; i++) {
      now += idle - 1000;
      assert.ok(await s.adminSessions.use(sha('busy'), idle), `used in time (${i})`);
    }
    assert.equal(await s.adminSessions.use(sha('idle'), idle), undefined, 'idle past the limit');
    now += 4000;
    assert.equal(await s.adminSessions.use(sha('busy'), idle), undefined, 'past its age');
    assert.equal(await s.adminSessions.count(), 0);
    for (const id of ['a', 'b', 'c', 'd']) {
      now += 1;
      await s.adminSessions.create(session(id, now), 3);
    }
    assert.equal(await s.adminSessions.use(sha('a'), idle), undefined, 'the oldest went');
    for (const id of ['b', 'c', 'd']) assert.ok(await s.adminSessions.use(sha(id), idle), id);
    await s.close();
  });

  it('failed sign-ins count per address within a window, each concurrent one once, across replicas', async (h) => {
    let now = t0;
    const s = h.open({ now: () => now });
    const replica = h.open({ now: () => now });
    const minute = 60_000;
    assert.equal(await s.adminSessions.failures('203.0.113.5', minute), 0);
    const counts = await Promise.all([1, 2, 3].map(() => s.adminSessions.addFailure('203.0.113.5', minute)));
    assert.deepEqual([...counts].sort(), [1, 2, 3], 'three concurrent failures, counted once each');
    assert.equal(await replica.adminSessions.addFailure('203.0.113.5', minute), 4, 'a replica counts on');
    assert.equal(await replica.adminSessions.addFailure('::ffff:198.51.100.7', minute), 1, 'another address');
    assert.equal(await replica.adminSessions.failures('203.0.113.5', minute), 4);
    now += minute + 1;
    assert.equal(await s.adminSessions.failures('203.0.113.5', minute), 0, 'the window is over');
    assert.equal(await s.adminSessions.addFailure('203.0.113.5', minute), 1, 'a new window');
    await s.close();
    const again = h.open({ now: () => now });
    assert.equal(await again.adminSessions.failures('203.0.113.5', minute), 1, 'kept across a restart');
    await again.close();
    await replica.close();
  });

  it('refuses a malformed session or address, naming it', async (h) => {
    const s = h.open();
    await assert.rejects(
      s.adminSessions.create({ ...session('x', t0), idHash: 'plain-id' }, 10),
      (e: unknown) => e instanceof StoreError && /SHA-256/.test(e.message),
    );
    await assert.rejects(
      s.adminSessions.addFailure('10.0.0.1\n', 60_000),
      (e: unknown) => e instanceof StoreError && /sign-in address/.test(e.message),
    );
    await s.close();
  });
}
