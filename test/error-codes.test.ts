// Every error boxbot raises on purpose is a BoxbotError with a code and a retryable flag, and each
// subclass's code is a union: a switch over it is checked by the compiler (a code added to a
// union without a case fails `tsc`), and the messages users see are those of before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterApiError, AdapterError, type AdapterErrorCode, AdapterNetworkError } from '../src/adapters/index.ts';
import { ProviderError } from '../src/agent/providers/errors.ts';
import { BoxbotError } from '../src/core/errors.ts';
import { GatewayStoppingError } from '../src/runner/ports.ts';
import { SchedulerError } from '../src/scheduler/errors.ts';
import { StoreError } from '../src/store/index.ts';

/** What a caller does about a store failure: exhaustive, so a new code is a compile error here. */
function storeAdvice(e: StoreError): string {
  switch (e.code) {
    case 'io':
      return 'wait and try again';
    case 'corrupt':
      return 'look at the file moved aside';
    case 'bad-key':
    case 'invalid':
      return 'a bug in the caller';
    case 'not-found':
      return 'nothing to do';
    case 'closed':
      return 'the store was closed';
    case 'fenced':
      return 'another replica owns the conversation now';
    default: {
      const unknown: never = e.code;
      return unknown;
    }
  }
}

test('a switch over a StoreError code is exhaustive, and only I/O failures are retryable', () => {
  assert.equal(storeAdvice(new StoreError('io', 'disk full')), 'wait and try again');
  assert.equal(new StoreError('io', 'disk full').retryable, true);
  assert.equal(storeAdvice(new StoreError('corrupt', 'x')), 'look at the file moved aside');
  assert.equal(new StoreError('corrupt', 'x').retryable, false);
});

test('the gateway stopping is a retryable BoxbotError, its messages as before', () => {
  const stopping = new GatewayStoppingError();
  assert.ok(stopping instanceof BoxbotError);
  assert.equal(stopping.code, 'stopping');
  assert.equal(stopping.retryable, true, 'the run is interrupted, and runs again at the next start');
  assert.equal(stopping.message, 'the gateway is stopping');
  assert.equal(stopping.name, 'GatewayStoppingError');
  assert.equal(stopping.handedOver, false);
  const handed = new GatewayStoppingError(true);
  assert.equal(handed.code, 'handed-over');
  assert.equal(handed.message, 'another replica now answers this conversation');
  assert.equal(handed.handedOver, true);
});

test('codes of the other subclasses are their unions, with the flags and messages of before', () => {
  const codes: AdapterErrorCode[] = [
    new AdapterApiError('telegram', 429, 'Too Many Requests').code,
    new AdapterApiError('slack', 400, 'invalid_blocks').code,
    new AdapterNetworkError('discord', 'ECONNRESET').code,
    new AdapterError('web', 'too-large', 'the file is 9 bytes').code,
  ];
  assert.deepEqual(codes, ['rate-limited', 'api-error', 'network-error', 'too-large']);
  const provider = new ProviderError('openai', 'stalled', 'no data for 60 s');
  const code: `provider-${'api' | 'network' | 'stream' | 'stalled' | 'aborted'}` = provider.code;
  assert.equal(code, 'provider-stalled');
  assert.equal(provider.retryable, true);
  const busy: 'not-found' | 'stopped' | 'busy' = new SchedulerError('busy', 'the job is running').code;
  assert.equal(busy, 'busy');
});
