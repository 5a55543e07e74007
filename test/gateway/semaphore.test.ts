// Run slots: a bound on runs at work, in arrival order; a run that steps away frees its slot and comes back ahead
// of runs not yet started; parallel waits of one run free it only when all of them wait; a wait that ends after
// its run takes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Semaphore, type SlotLease } from '../../src/gateway/semaphore.ts';

/** A run that holds its lease until `finish` is called. */
function hold(sem: Semaphore, log: string[], name: string) {
  let finish!: () => void;
  let lease!: SlotLease;
  const started = new Promise<void>((resolve) => {
    void sem.run(async (l) => {
      lease = l;
      log.push(`${name} runs`);
      resolve();
      await new Promise<void>((r) => (finish = r));
    });
  });
  return { started, finish: () => finish(), lease: () => lease };
}

const settle = () => new Promise<void>((r) => setImmediate(r));

test('a freed slot goes to a run coming back, then to the first in line; one stepping away lets the next run', {
  timeout: 5000,
}, async () => {
  const sem = new Semaphore(1);
  const log: string[] = [];
  const a = hold(sem, log, 'a');
  await a.started;
  const b = hold(sem, log, 'b');
  const c = hold(sem, log, 'c');
  await settle();
  assert.deepEqual(log, ['a runs']);
  let gate!: () => void;
  const away = a
    .lease()
    .away(() => new Promise<void>((r) => (gate = r)))
    .then(() => log.push('a back'));
  await b.started;
  assert.deepEqual(log, ['a runs', 'b runs'], 'b runs while a waits');
  gate();
  await settle();
  assert.deepEqual(log, ['a runs', 'b runs'], 'a waits for b, who holds the slot');
  b.finish();
  await away;
  assert.deepEqual(log, ['a runs', 'b runs', 'a back'], 'a, coming back with work half done, goes ahead of c');
  a.finish();
  await c.started;
  assert.deepEqual(log, ['a runs', 'b runs', 'a back', 'c runs']);
  c.finish();
});

test('parallel waits of one run free its slot only when every one of them waits', { timeout: 5000 }, async () => {
  const sem = new Semaphore(1);
  const log: string[] = [];
  const a = hold(sem, log, 'a');
  await a.started;
  const lease = a.lease();
  lease.leave(); // a sub-agent streams ...
  lease.back(); // ... while another tool call of the run still works (this run holds the slot: busy 1)
  const b = hold(sem, log, 'b');
  await settle();
  assert.deepEqual(log, ['a runs'], 'one activity still works: the slot stays');
  lease.leave();
  await b.started;
  let back = false;
  void lease.back().then(() => (back = true));
  await settle();
  assert.equal(back, false, 'a waits for b to finish');
  b.finish();
  await settle();
  assert.equal(back, true);
  a.finish();
});

test('a wait that ends after its run ended takes no slot', { timeout: 5000 }, async () => {
  const sem = new Semaphore(1);
  const log: string[] = [];
  let lease!: SlotLease;
  await sem.run(async (l) => {
    lease = l;
    l.leave();
  });
  await lease.back(); // a stream closed after the run returned
  const b = hold(sem, log, 'b');
  await b.started;
  const c = hold(sem, log, 'c');
  await settle();
  assert.deepEqual(log, ['b runs'], 'still one slot, not two and not none');
  b.finish();
  await c.started;
  c.finish();
});
