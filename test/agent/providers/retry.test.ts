// The retry policy on its own: which failures are retried, how long it waits, and that a cancelled
// wait ends the call at once. The contract suite covers the same layer against real HTTP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ProviderError,
  retryAfterMsOf,
  retryDelayMs,
  shouldRetry,
  withRetry,
} from '../../../src/agent/providers/index.ts';
import type { Provider, StreamPart } from '../../../src/agent/types.ts';
import { sleep } from '../../../src/core/sleep.ts';
import { collect, request } from './contract.ts';

const api = (status: number, retryAfterMs?: number) =>
  new ProviderError('p', 'api', `status ${status}`, {
    status,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });

/** A provider that fails with `errors` in turn, then answers. */
function flaky(errors: ProviderError[]): Provider & { calls: number } {
  const p = {
    name: 'flaky',
    calls: 0,
    async *stream(): AsyncGenerator<StreamPart> {
      const err = errors[p.calls++];
      if (err) throw err;
      yield { type: 'text-delta', text: 'ok' };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return p;
}

describe('retry policy', () => {
  it('retries rate limits, overload, server and network errors; never 400/401/403/404', () => {
    for (const s of [408, 429, 500, 502, 503, 504, 529]) assert.equal(shouldRetry(0, api(s)), true, `status ${s}`);
    for (const s of [400, 401, 403, 404, 413, 422]) assert.equal(shouldRetry(0, api(s)), false, `status ${s}`);
    assert.equal(shouldRetry(0, new ProviderError('p', 'network', 'ECONNRESET')), true);
    assert.equal(shouldRetry(0, new ProviderError('p', 'aborted', 'cancelled')), false);
  });

  it('never retries after content was delivered', () => {
    assert.equal(shouldRetry(0, api(529).asMidStream()), false);
    assert.equal(shouldRetry(0, new ProviderError('p', 'network', 'reset', { midStream: true })), false);
  });

  it('stops at maxRetries, and on 529 at once when a fallback should take over', () => {
    assert.equal(shouldRetry(2, api(500), { maxRetries: 2 }), false);
    assert.equal(shouldRetry(1, api(500), { maxRetries: 2 }), true);
    assert.equal(shouldRetry(0, api(529), { retryOverloaded: false }), false);
    assert.equal(shouldRetry(0, api(503), { retryOverloaded: false }), true);
  });

  it('does not wait for a server that asks for more than maxRetryAfterMs', () => {
    assert.equal(shouldRetry(0, api(429, 120_000)), false);
    assert.equal(shouldRetry(0, api(429, 120_000), { maxRetryAfterMs: 300_000 }), true);
  });

  it('backs off exponentially with jitter, capped, unless the server said how long', () => {
    const half = { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0 };
    const full = { ...half, random: () => 0.999999 };
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((a) => retryDelayMs(a, api(500), half)),
      [50, 100, 200, 400, 500, 500],
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((a) => retryDelayMs(a, api(500), full)),
      [100, 200, 400, 800, 1000, 1000],
    );
    assert.equal(retryDelayMs(3, api(429, 1234), half), 1234);
  });

  it('reads retry-after-ms, retry-after seconds and retry-after dates', () => {
    assert.equal(retryAfterMsOf(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' })), 250);
    assert.equal(retryAfterMsOf(new Headers({ 'retry-after': '3' })), 3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterMsOf({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, now), 5000);
    assert.equal(retryAfterMsOf(new Headers({ 'retry-after': 'soon' })), undefined);
    assert.equal(retryAfterMsOf(undefined), undefined);
  });

  it('withRetry: a flaky provider answers after its failures, waiting between them', async () => {
    const p = flaky([api(503), new ProviderError('flaky', 'network', 'ECONNRESET')]);
    const waits: number[] = [];
    const out = await collect(
      withRetry(p, { baseDelayMs: 10, random: () => 0, sleep: async (ms) => void waits.push(ms) }).stream(
        request('m'),
        new AbortController().signal,
      ),
    );
    assert.equal(out.text, 'ok');
    assert.equal(p.calls, 3);
    assert.deepEqual(waits, [5, 10]);
  });

  it('withRetry: cancelling during the wait ends the call with an aborted error, without another attempt', async () => {
    const p = flaky([api(503), api(503)]);
    const ac = new AbortController();
    const retried = withRetry(p, {
      sleep: (ms, signal) => {
        ac.abort();
        return sleep(ms, signal);
      },
    });
    const out = await collect(retried.stream(request('m'), ac.signal));
    assert.ok(out.error instanceof ProviderError);
    assert.equal(out.error.kind, 'aborted');
    assert.equal(p.calls, 1);
  });
});
