// Long polling against the emulator: the offset is acknowledged only after the sink accepted an
// update and survives a restart; malformed updates, 409 conflicts, 5xx and cut connections are
// survived; stop abandons the held long poll; the token never shows in errors or logs.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { AdapterApiError } from '../../src/adapters/index.ts';
import { TELEGRAM_OFFSET_KEY } from '../../src/adapters/telegram/index.ts';
import { createLogger } from '../../src/core/log.ts';
import { createFileStore, type JsonValue } from '../../src/store/index.ts';
import { ADA, GROUP, telegramHarness } from '../emulators/telegram/harness.ts';
import { tempDir } from '../helpers.ts';
import { until } from './contract.ts';

const DM = { id: ADA.id, type: 'private' as const, first_name: 'Ada' };

/** A harness closed when the test ends, pass or fail (no leaked pollers keep the process alive). */
async function harness(t: TestContext) {
  const h = await telegramHarness();
  t.after(() => h.close());
  return h;
}

/** A logger whose lines are kept (parsed) for the test to read. */
function keptLog(): {
  logger: ReturnType<typeof createLogger>;
  lines: { level: number; msg: string; [k: string]: unknown }[];
} {
  const lines: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as { level: number; msg: string });
      cb();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), lines };
}

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

test('the offset is persisted per accepted update: a restart neither loses nor repeats updates', async (t) => {
  const h = await harness(t);
  const ids = [1, 2, 3, 4, 5].map(
    (i) => h.emulator.userMessage({ chat: DM, from: ADA, text: `m${i}` }).update_id as number,
  );
  const first: string[] = [];
  const atThird = deferred();
  const release = deferred();
  await h.adapter.start(async (m) => {
    first.push(m.text);
    if (m.text === 'm3') {
      atThird.resolve();
      await release.promise; // the sink is still working on m3 when stop is requested
    }
  });
  await atThird.promise;
  const stopped = h.adapter.stop();
  release.resolve();
  await stopped;
  assert.deepEqual(first, ['m1', 'm2', 'm3'], 'stop lets the update in hand finish and delivers no more');
  assert.equal(h.state.data.get(TELEGRAM_OFFSET_KEY), ids[2]! + 1);
  // Telegram still holds all five: only the persisted offset tells the next run where to resume.
  assert.equal(h.emulator.pendingUpdates(), 5);

  const second: string[] = [];
  const restarted = h.newAdapter();
  await restarted.start(async (m) => {
    second.push(m.text);
  });
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'm6' });
  await until(() => second.length >= 3, 'the updates after the restart');
  await restarted.stop();
  assert.deepEqual([...first, ...second], ['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
});

test('an update the sink rejects is not acknowledged and comes again', async (t) => {
  const h = await harness(t);
  const seen: string[] = [];
  let failOnce = true;
  await h.adapter.start(async (m) => {
    seen.push(m.text);
    if (m.text === 'flaky' && failOnce) {
      failOnce = false;
      throw new Error('store unavailable');
    }
  });
  const flaky = h.emulator.userMessage({ chat: DM, from: ADA, text: 'flaky' }).update_id as number;
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'next' });
  await until(() => seen.includes('next'), 'the message after the rejected one');
  assert.deepEqual(seen, ['flaky', 'flaky', 'next']);
  await until(() => h.state.data.get(TELEGRAM_OFFSET_KEY) === flaky + 2, 'the offset past both');
});

const sideBySideTitle =
  'the chats of a batch are delivered side by side, each in order; the offset passes what was accepted in order';
test(sideBySideTitle, async (t) => {
  const h = await harness(t);
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'slow' });
  h.emulator.userMessage({ chat: GROUP, from: ADA, text: 'other chat' });
  const last = h.emulator.userMessage({ chat: DM, from: ADA, text: 'after slow' }).update_id as number;
  const release = deferred();
  const seen: string[] = [];
  await h.adapter.start(async (m) => {
    seen.push(m.text);
    if (m.text === 'slow') await release.promise; // a slow save of the first chat's message
  });
  // On a failure the held update is let go, so the adapter can stop.
  await until(() => seen.includes('other chat'), 'the other chat’s update while the first is held').catch((e) => {
    release.resolve();
    throw e;
  });
  assert.deepEqual(seen, ['slow', 'other chat'], 'the held chat’s next update waits for it');
  assert.equal(h.state.data.get(TELEGRAM_OFFSET_KEY), undefined, 'nothing acknowledged past the held update');
  release.resolve();
  await until(() => h.state.data.get(TELEGRAM_OFFSET_KEY) === last + 1, 'the offset past all three');
  assert.deepEqual(seen, ['slow', 'other chat', 'after slow']);
});

test('malformed updates from getUpdates are dropped, acknowledged, and polling continues', async (t) => {
  const h = await harness(t);
  const got: string[] = [];
  await h.adapter.start(async (m) => {
    got.push(m.text);
  });
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'before' });
  h.emulator.pushUpdate({ message: null });
  h.emulator.pushUpdate({});
  h.emulator.pushUpdate({ message: { message_id: 'one', chat: { id: 'x' } } });
  h.emulator.pushUpdate({
    message: {
      message_id: 3,
      date: 1,
      chat: { id: ADA.id, type: 'private' },
      from: { id: ADA.id },
      text: { rich: true },
    },
  });
  h.emulator.pushUpdate({
    message: {
      message_id: 4,
      date: 1,
      chat: { id: ADA.id, type: 'private' },
      from: ADA,
      text: 'bad entities',
      entities: 'lots',
    },
  });
  h.emulator.pushUpdate({ totally_new_update_kind: { x: 1 } });
  const last = h.emulator.userMessage({ chat: DM, from: ADA, text: 'after' }).update_id as number;
  await until(() => got.includes('after'), 'the good update after the bad ones');
  assert.deepEqual(got, ['before', 'bad entities', 'after'], 'bad entity lists are ignored, the message itself kept');
  await until(() => h.state.data.get(TELEGRAM_OFFSET_KEY) === last + 1, 'the offset past the malformed updates');
});

test('409 conflicts, 5xx answers and cut connections are retried with backoff', async (t) => {
  const h = await harness(t);
  const conflict = 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running';
  h.emulator.failNext({ methods: ['getUpdates'], count: 2, error_code: 409, description: conflict });
  h.emulator.failNext({ methods: ['getUpdates'], count: 1, error_code: 502, description: 'Bad Gateway' });
  h.emulator.failNext({ methods: ['getUpdates'], count: 1, network: true, error_code: 0, description: '' });
  const got: string[] = [];
  await h.adapter.start(async (m) => {
    got.push(m.text);
  });
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'still here' });
  await until(() => got.includes('still here'), 'the message after the failures');
  const statuses = h.emulator.calls.filter((c) => c.method === 'getUpdates').map((c) => c.status);
  assert.deepEqual(statuses.slice(0, 5), [409, 409, 502, 0, 200]);
});

test('stop abandons the held long poll at once', async (t) => {
  const h = await harness(t);
  await h.adapter.start(async () => undefined);
  await until(() => h.emulator.heldPolls() === 1, 'a held getUpdates');
  await h.adapter.stop();
  await until(() => h.emulator.heldPolls() === 0, 'the long poll to be abandoned');
  const polls = h.emulator.calls.filter((c) => c.method === 'getUpdates').length;
  // A message arriving now stays pending: a poller still running would hold a poll, take it and
  // confirm it with its next getUpdates. Our own getUpdates (after a round trip) still finds it.
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'after stop' });
  const res = await fetch(`${h.emulator.apiRoot}/bot${h.emulator.token}/getUpdates`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ timeout: 0 }),
  });
  const pending = ((await res.json()) as { result: { message: { text: string } }[] }).result;
  assert.deepEqual(
    pending.map((u) => u.message.text),
    ['after stop'],
    'the message after stop was left for the next poller',
  );
  assert.equal(
    h.emulator.calls.filter((c) => c.method === 'getUpdates').length,
    polls + 1,
    'no polling after stop (the one call after it is ours)',
  );
  assert.equal(h.emulator.calls.find((c) => c.method === 'getUpdates')?.params.timeout, 30);
});

test('a wrong token fails start with 401, and the token appears in no error or log line', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination: sink });
  const h = await harness(t);
  const wrong = h.newAdapter({ token: '999:wrong-token-value', logger });
  await assert.rejects(
    wrong.start(async () => undefined),
    (e: unknown) => {
      assert.ok(e instanceof AdapterApiError);
      assert.equal(e.status, 401);
      assert.ok(!e.message.includes('wrong-token-value'));
      return true;
    },
  );
  // A network failure while polling is logged; the URL (which holds the token) is not.
  const right = h.newAdapter({ logger });
  h.emulator.failNext({ methods: ['getUpdates'], count: 1, network: true, error_code: 0, description: '' });
  const got: string[] = [];
  await right.start(async (m) => {
    got.push(m.text);
  });
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'ok' });
  await until(() => got.length === 1, 'the message');
  await right.stop();
  assert.ok(
    lines.some((l) => l.includes('getUpdates failed')),
    'the failure was logged',
  );
  for (const l of lines) assert.ok(!l.includes(h.emulator.token), `token leaked: ${l}`);
});

test('a corrupt kv.json does not stop polling: it is moved aside and reported, and updates flow', async (t) => {
  const h = await harness(t);
  const dir = tempDir();
  const { writeFile, readdir } = await import('node:fs/promises');
  await writeFile(`${dir}/kv.json`, '{"values":{"telegram.offset":');
  const { logger, lines } = keptLog();
  const store = createFileStore(dir, { logger });
  t.after(() => store.close());
  // The state as the gateway wires it: the store's kv.
  const adapter = h.newAdapter({
    state: { get: (k) => store.kv.get(k), set: (k, v) => store.kv.set(k, v as JsonValue) },
    logger,
  });
  const got: string[] = [];
  await adapter.start(async (m) => {
    got.push(m.text);
  });
  const id = h.emulator.userMessage({ chat: DM, from: ADA, text: 'after the damage' }).update_id as number;
  await until(() => got.length === 1, 'the message');
  await adapter.stop();
  assert.equal(await store.kv.get(TELEGRAM_OFFSET_KEY), id + 1, 'the offset is saved again');
  assert.ok(
    (await readdir(dir)).some((n) => n.startsWith('kv.json.corrupt-')),
    'the bad file is kept for an admin',
  );
  assert.ok(
    lines.some((l) => l.level >= 50 && String(l.file).endsWith('kv.json')),
    'an error names the file',
  );
});

test('a saved offset that cannot be read is logged, and polling starts without it', async (t) => {
  const h = await harness(t);
  const { logger, lines } = keptLog();
  const adapter = h.newAdapter({
    state: { get: async () => Promise.reject(new Error('EIO: i/o error, open kv.json')), set: async () => undefined },
    logger,
  });
  const got: string[] = [];
  await adapter.start(async (m) => {
    got.push(m.text);
  });
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'still polled' });
  await until(() => got.length === 1, 'the message');
  await adapter.stop();
  assert.ok(
    lines.some((l) => l.level >= 50 && /kv\.json/.test(String(l.err))),
    'the failure is logged as an error',
  );
});
