// `boxbot start` between the signals: a SIGTERM that comes while the gateway starts (or as its
// banner appears) stops it gracefully once started, instead of ending the process untouched.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { untilSignalled } from '../../src/cli/until-signalled.ts';
import { createLogger } from '../../src/core/log.ts';

/** An app whose start waits for `started`, recording what happened to it. */
function harness() {
  const events: string[] = [];
  const signals = new EventEmitter();
  let started!: () => void;
  const starting = new Promise<void>((r) => (started = r));
  const app = { stop: async () => void events.push('stopped') };
  const ended = untilSignalled({
    begin: async () => {
      await starting;
      events.push('started');
      return app;
    },
    up: () => events.push('banner'),
    timeoutMs: () => 60_000,
    log: createLogger({ level: 'silent' }),
    say: (line) => events.push(line),
    signals,
  });
  return { events, signals, started, ended };
}

test('a SIGTERM while the gateway starts is caught: it stops once started, with no banner, exit 0', async () => {
  const h = harness();
  // The start is under way (begin has been called) when the signal comes.
  assert.equal(h.signals.emit('SIGTERM'), true, 'SIGTERM is caught while the gateway starts');
  h.started();
  assert.equal(await h.ended, 0);
  assert.deepEqual(h.events, ['stopping…', 'started', 'stopped']);
});

test('a SIGINT once the gateway is up stops it after its banner, exit 0', async () => {
  const h = harness();
  h.started();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(h.events, ['started', 'banner']);
  assert.equal(h.signals.emit('SIGINT'), true);
  assert.equal(await h.ended, 0);
  assert.deepEqual(h.events, ['started', 'banner', 'stopping…', 'stopped']);
});

test('a start that fails leaves no signal caught (the process ends as any failed command)', async () => {
  const signals = new EventEmitter();
  const ended = untilSignalled({
    begin: async () => {
      throw new Error('config invalid');
    },
    up: () => assert.fail('no banner'),
    timeoutMs: () => 60_000,
    log: createLogger({ level: 'silent' }),
    say: () => undefined,
    signals,
  });
  await assert.rejects(ended, /config invalid/);
  assert.equal(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT'), 0);
});
