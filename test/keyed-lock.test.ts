// KeyedLock: work on one key runs strictly one after another in call order (a failure does not
// break the chain), different keys overlap, and idle() waits for everything queued.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeyedLock } from '../src/core/keyed-lock.ts';

/** A promise settled from outside. */
function gate<T = void>() {
  let open!: (v: T) => void;
  let fail!: (e: Error) => void;
  const p = new Promise<T>((res, rej) => ((open = res), (fail = rej)));
  return { p, open, fail };
}

test('one key: each run starts only after the previous one settled, in call order', async () => {
  const lock = createKeyedLock();
  const log: string[] = [];
  const g1 = gate();
  const a = lock.run('k', async () => (log.push('a start'), await g1.p, log.push('a end'), 'A'));
  const b = lock.run('k', async () => (log.push('b'), 'B'));
  const c = lock.run('k', async () => (log.push('c'), 'C'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(log, ['a start'], 'b and c wait for a');
  g1.open();
  assert.deepEqual(await Promise.all([a, b, c]), ['A', 'B', 'C']);
  assert.deepEqual(log, ['a start', 'a end', 'b', 'c']);
});

test('a failed run rejects its caller only; the next run of the key still goes', async () => {
  const lock = createKeyedLock();
  const bad = lock.run('k', async () => {
    throw new Error('boom');
  });
  const good = lock.run('k', async () => 'ok');
  await assert.rejects(bad, /boom/);
  assert.equal(await good, 'ok');
});

test('different keys run at the same time', async () => {
  const lock = createKeyedLock();
  const g = gate();
  const running: string[] = [];
  const a = lock.run('a', async () => (running.push('a'), await g.p));
  const b = lock.run('b', async () => (running.push('b'), await g.p));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(running.sort(), ['a', 'b'], 'neither waits for the other');
  g.open();
  await Promise.all([a, b]);
});

test('idle() resolves once everything queued (including runs added meanwhile) has settled', async () => {
  const lock = createKeyedLock();
  const g = gate();
  const done: string[] = [];
  void lock.run('a', async () => (await g.p, done.push('a1')));
  void lock
    .run('a', async () => {
      done.push('a2');
      throw new Error('ignored by idle');
    })
    .catch(() => undefined);
  void lock.run('b', async () => done.push('b'));
  let idle = false;
  const waiting = lock.idle().then(() => (idle = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(idle, false);
  g.open();
  await waiting;
  assert.deepEqual(done.sort(), ['a1', 'a2', 'b']);
  await lock.idle(); // nothing left: resolves at once
});
