// The poller's waits after failures, counted through its sleep hook (no clock involved): capped
// at 5 s by default so the first poll after an outage is never far behind the recovery, jittered
// so they do not line up, reset by a good poll, and Telegram's retry_after kept as given.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { Api } from 'grammy';
import { GrammyError } from 'grammy';
import { DEFAULT_BACKOFF, startPoller } from '../../src/adapters/telegram/poller.ts';
import { createLogger, silentLogger } from '../../src/core/log.ts';
import { memoryState } from '../emulators/telegram/harness.ts';
import { until } from './contract.ts';

type Step = 'down' | '429' | 'update' | 'hold';

/** A getUpdates that follows `script`, then holds its long poll until aborted. */
function scriptedApi(script: Step[]): { api: Api; calls: () => number } {
  let n = 0;
  let updateId = 100;
  const getUpdates = async (_params: unknown, signal: AbortSignal): Promise<unknown[]> => {
    const step = script[n++] ?? 'hold';
    if (step === 'down') throw new Error('connect ECONNREFUSED 127.0.0.1:443');
    if (step === '429')
      throw new GrammyError(
        'Too Many Requests',
        { ok: false, error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } },
        'getUpdates',
        {},
      );
    if (step === 'update') return [{ update_id: updateId++ }];
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve([])));
  };
  return { api: { getUpdates } as unknown as Api, calls: () => n };
}

async function waitsFor(script: Step[], random: () => number): Promise<number[]> {
  const waits: number[] = [];
  const { api, calls } = scriptedApi(script);
  const poller = await startPoller({
    api,
    token: 't',
    state: memoryState(),
    log: silentLogger,
    timeoutSeconds: 30,
    allowedUpdates: ['message'],
    backoff: DEFAULT_BACKOFF,
    deliver: async () => undefined,
    sleep: async (ms) => void waits.push(ms),
    random,
  });
  await until(() => calls() > script.length, 'the script to be played');
  await poller.stop();
  return waits;
}

test('after a long outage the next poll is at most 5 s away, and the waits are jittered', async () => {
  let i = 0;
  const randoms = [0, 1, 0.5, 0.25, 0.75];
  const waits = await waitsFor(Array(20).fill('down'), () => randoms[i++ % randoms.length]!);
  assert.equal(waits.length, 20);
  assert.ok(Math.max(...waits) <= 5000, `waits: ${waits.join(', ')}`);
  const capped = waits.slice(6);
  assert.ok(
    capped.every((w) => w >= 2500),
    `a capped wait is at least half the cap: ${capped.join(', ')}`,
  );
  assert.ok(new Set(capped).size > 1, 'capped waits differ');
  assert.equal(waits[0]! <= 1000, true, 'the first retry comes within a second');
});

test('a good poll resets the backoff; retry_after from Telegram is waited as given', async () => {
  const waits = await waitsFor(['down', 'down', 'down', 'down', 'update', 'down', '429'], () => 1);
  assert.deepEqual(waits, [1000, 2000, 4000, 5000, 1000, 7000]);
});

test('stop during a backoff wait ends the wait at once, and polling ends cleanly (no error logged)', async () => {
  const errors: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n'))
        if (l && (JSON.parse(l) as { level: number }).level >= 50) errors.push(l);
      cb();
    },
  });
  const { api, calls } = scriptedApi(['down']);
  // The real wait (no sleep hook), long enough that only stop can end it.
  const poller = await startPoller({
    api,
    token: 't',
    state: memoryState(),
    log: createLogger({ level: 'debug', destination }),
    timeoutSeconds: 30,
    allowedUpdates: ['message'],
    backoff: { initialMs: 600_000, maxMs: 600_000 },
    deliver: async () => undefined,
  });
  await until(() => calls() >= 1, 'the failing poll');
  await poller.stop();
  assert.equal(calls(), 1, 'no poll after stop');
  assert.deepEqual(errors, []);
});
