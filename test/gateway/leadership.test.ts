// The election over a lease store (an in-memory one with the database's rules): one leader at a
// time, a clean stop hands over at once, and a leader that cannot renew steps down before its
// lease could pass to another replica.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/log.ts';
import { createLeadership, type Leadership } from '../../src/gateway/leadership.ts';
import type { LeaseStore } from '../../src/store/index.ts';
import { waitUntil } from '../helpers.ts';
import { memoryLeases } from './fakes.ts';

function contender(leases: LeaseStore, holder: string, log: string[]): Leadership {
  return createLeadership({
    leases,
    holder,
    // The handover is by release at stop, never by expiry: a lease this short expired whenever the event loop
    // stalled (a loaded machine, the next test file imported), and a second holder then took it early.
    ttlMs: 10_000,
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
    // The default lease: it steps down half-way (3 s), leaving 3 s that a stalled event loop (a loaded machine,
    // the next test file imported) cannot eat; with 2 s, 1 s was left.
    ttlMs: 6000,
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
  await waitUntil(() => !a.leading(), 'the leader steps down', 30_000);
  assert.equal(leaseRanWhenSteppingDown, true, 'it stepped down while its lease still ran');
  leases.down = false;
  await waitUntil(() => a.leading(), 'it leads again once the database is back', 30_000);
  await a.stop();
});

test('a leader whose work fails to start hands the lease on instead of failing the process', async () => {
  const leases = memoryLeases();
  let tries = 0;
  const a = createLeadership({
    leases,
    holder: 'a',
    ttlMs: 2000,
    everyMs: 50,
    onLead: async () => {
      if (++tries === 1) throw new Error('connection refused');
    },
    onFollow: async () => {},
    log: silentLogger,
  });
  await a.start();
  assert.equal(a.leading(), false, 'not leading with its work not running');
  assert.deepEqual(leases.leaders(), [], 'the lease was handed on');
  await waitUntil(() => a.leading(), 'a later round takes it again', 5000);
  await a.stop();
});
