// The delivery path's store-write retry: I/O failures are waited out (the user told once), a
// refusal fails at once, and a stopping gateway ends the wait.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/log.ts';
import { persister } from '../../src/runner/persist.ts';
import { StoreError } from '../../src/store/index.ts';

const io = () => new StoreError('io', 'store I/O failed on delivery.log: ENOSPC: no space left on device');

test('an I/O failure is retried until the write succeeds; the first failure is reported once', async () => {
  const persist = persister({
    log: silentLogger,
    stopping: new AbortController().signal,
    backoffMs: 1,
    maxBackoffMs: 2,
  });
  let calls = 0;
  let told = 0;
  const v = await persist(
    'outbox',
    async () => (++calls < 4 ? Promise.reject(io()) : 'written'),
    () => told++,
  );
  assert.equal(v, 'written');
  assert.equal(calls, 4);
  assert.equal(told, 1);
});

test('a refusal (no such record) fails at once instead of waiting for ever', async () => {
  const persist = persister({
    log: silentLogger,
    stopping: new AbortController().signal,
    backoffMs: 1,
    maxBackoffMs: 2,
  });
  let calls = 0;
  await assert.rejects(
    persist('receipt', async () => (calls++, Promise.reject(new StoreError('not-found', 'no outbox entry')))),
    /no outbox entry/,
  );
  assert.equal(calls, 1);
});

test('stopping the gateway ends the wait with the last error', async () => {
  const stop = new AbortController();
  const persist = persister({ log: silentLogger, stopping: stop.signal, backoffMs: 60_000, maxBackoffMs: 60_000 });
  const writing = persist('outbox', () => Promise.reject(io()));
  stop.abort();
  await assert.rejects(writing, /ENOSPC/);
});

test('stopping while the retry waits ends the wait with the last error', async () => {
  const stop = new AbortController();
  const persist = persister({ log: silentLogger, stopping: stop.signal, backoffMs: 60_000, maxBackoffMs: 60_000 });
  // Stopped only once the first failure was reported, i.e. while the 60 s wait runs.
  const writing = persist(
    'outbox',
    () => Promise.reject(io()),
    () => setImmediate(() => stop.abort()),
  );
  await assert.rejects(writing, /ENOSPC/);
});
