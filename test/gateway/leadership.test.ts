// The election over a lease store (an in-memory one with the database's rules): one leader at a
// time, a clean stop hands over at once, and a leader that cannot renew steps down before its
// lease could pass to another replica.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLeadership, type Leadership } from '../../src/gateway/leadership.ts';
import { silentLogger } from '../../src/log.ts';
import type { LeaseStore } from '../../src/store/index.ts';
import { waitUntil } from '../helpers.ts';

/** Leases in memory, expiring on the real clock; `down` makes every call fail like a lost database. */
function memoryLeases() {
  const rows = new Map<string, { holder: string; fence: number; expires: number }>();
  const store = {
    down: false,
    leaders: (): string[] => [...rows.values()].filter((r) => r.expires > Date.now()).map((r) => r.holder),
    async acquire(name: string, holder: string, ttlMs: number) {
      if (store.down) throw new Error('connection refused');
      const row = rows.get(name);
      if (row && row.holder !== holder && row.expires > Date.now()) return undefined;
      const fence = !row ? 1 : row.holder === holder ? row.fence : row.fence + 1;
      rows.set(name, { holder, fence, expires: Date.now() + ttlMs });
      return fence;
    },
    async release(name: string, holder: string) {
      const row = rows.get(name);
      if (row?.holder === holder) row.expires = 0;
    },
  } satisfies LeaseStore & Record<string, unknown>;
  return store;
}

function contender(leases: LeaseStore, holder: string, log: string[]): Leadership {
  return createLeadership({
    leases,
    holder,
    ttlMs: 300,
    everyMs: 50,
    onLead: async (fence) => void log.push(`${holder} leads ${fence}`),
    onFollow: async () => void log.push(`${holder} follows`),
    log: silentLogger,
  });
}

test('one of three contenders leads; a clean stop hands over with a higher fence', async () => {
  const leases = memoryLeases();
  const log: string[] = [];
  const all = ['a', 'b', 'c'].map((h) => contender(leases, h, log));
  await Promise.all(all.map((l) => l.start()));
  assert.equal(all.filter((l) => l.leading()).length, 1);
  const first = all.find((l) => l.leading())!;
  await first.stop();
  await waitUntil(() => all.filter((l) => l.leading()).length === 1, 'a new leader', 5000);
  assert.deepEqual(
    log.filter((l) => l.includes('leads')).map((l) => l.split(' ')[2]),
    ['1', '2'],
    'the fence grows with each new holder',
  );
  for (const l of all) await l.stop();
});

test('a leader that cannot renew steps down before another can take the lease', async () => {
  const leases = memoryLeases();
  let leaseRanWhenSteppingDown: boolean | undefined;
  const a = createLeadership({
    leases,
    holder: 'a',
    ttlMs: 2000,
    everyMs: 50,
    onLead: async () => {},
    onFollow: async () => {
      leaseRanWhenSteppingDown = leases.leaders().includes('a');
    },
    log: silentLogger,
  });
  await a.start();
  assert.equal(a.leading(), true);
  leases.down = true;
  await waitUntil(() => !a.leading(), 'the leader steps down', 5000);
  assert.equal(leaseRanWhenSteppingDown, true, 'it stepped down while its lease still ran');
  leases.down = false;
  await waitUntil(() => a.leading(), 'it leads again once the database is back', 5000);
  await a.stop();
});
