// The one abortable wait: it waits, and a cancelled wait rejects with the signal's reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sleep } from '../src/core/sleep.ts';

test('sleep waits, and rejects with the reason when the signal fires', async () => {
  await sleep(1, new AbortController().signal);
  const ac = new AbortController();
  const pending = sleep(60_000, ac.signal);
  ac.abort(new Error('stop'));
  await assert.rejects(pending, /stop/);
});

test('sleep on an already aborted signal rejects at once', async () => {
  await assert.rejects(sleep(60_000, AbortSignal.abort(new Error('gone'))), /gone/);
});

test('sleep without a signal just waits', async () => {
  await sleep(1);
});
