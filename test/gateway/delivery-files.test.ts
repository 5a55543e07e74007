// Files an answer sends (the send_file tool's attachments), as a user would notice them: after the
// text, in order, with their name, type and bytes; exactly once across a restart between the text
// and a file or between two files; never dropped silently where they cannot go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterApiError, type OutboundFile } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { silentLogger } from '../../src/core/log.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import type { GatewayStore } from '../../src/runner/ports.ts';
import { createDeliveryLog } from '../../src/store/delivery-log.ts';
import { createDocuments } from '../../src/store/documents.ts';
import { createMemoryState, createMemoryStore, type MemoryFilesState } from '../../src/store/index.ts';
import { createMemoryFiles } from '../../src/store/memory-files.ts';
import { createSequence } from '../../src/store/sequence.ts';
import { DEFAULT_FAILED_OUTBOX, validatedDelivery } from '../../src/store/validated.ts';
import { FakeAdapter, FakeAgent, FakeFileAdapter, MemoryGatewayStore, until } from './fakes.ts';

function setup(o: { adapter?: FakeAdapter; agent?: FakeAgent; store?: GatewayStore } = {}) {
  const adapter = o.adapter ?? new FakeFileAdapter();
  const agent = o.agent ?? new FakeAgent();
  const store = o.store ?? new MemoryGatewayStore();
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent,
    store,
    outbound: { backoffMs: 1, maxBackoffMs: 5 },
  });
  return { adapter, agent, store, gw };
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text));
const file = (name: string, text: string, over: Partial<OutboundFile> = {}): OutboundFile => ({
  name,
  mimeType: 'text/plain',
  bytes: bytes(text),
  ...over,
});
/** Paths of the outbox's file copies in a memory data dir. */
const copies = (state: MemoryFilesState) => [...state.keys()].filter((k) => k.startsWith('outbox-files/'));

test('an answer with files: the text, then each file with its name, type, bytes and caption', async () => {
  const state = createMemoryState();
  const store = createMemoryStore({ state });
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  const { adapter, gw } = setup({
    store: store.delivery,
    agent: new FakeAgent(() => ({
      text: 'Here is the report and the chart.',
      files: [
        file('report.csv', 'a,b\n1,2\n'),
        file('chart.png', '', { mimeType: 'image/png', bytes: png, caption: 'Q3' }),
      ],
    })),
  });
  await gw.start();
  await adapter.say('report please');
  await gw.idle();
  const a = adapter as FakeFileAdapter;
  assert.deepEqual(adapter.texts(), ['Here is the report and the chart.']);
  assert.deepEqual(
    a.files.map((f) => [f.name, f.mimeType, Buffer.from(f.bytes).toString('hex'), f.caption]),
    [
      ['report.csv', 'text/plain', Buffer.from('a,b\n1,2\n').toString('hex'), undefined],
      ['chart.png', 'image/png', Buffer.from(png).toString('hex'), 'Q3'],
    ],
  );
  assert.deepEqual(
    a.calls.filter((c) => !c.startsWith('edit')),
    ['send:Here is the report a', 'file:report.csv', 'file:chart.png'],
  );
  assert.deepEqual(copies(state), [], 'the copies are removed once the answer is delivered');
  assert.deepEqual(await store.delivery.pendingOutbox(), []);
  await gw.stop();
  await store.close();
});

test('an answer that is only a file still says so in words', async () => {
  const { adapter, gw } = setup({ agent: new FakeAgent(() => ({ text: '', files: [file('notes.txt', 'hi')] })) });
  await gw.start();
  await adapter.say('send it');
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['(attached: notes.txt)']);
  assert.deepEqual((adapter as FakeFileAdapter).fileNames(), ['notes.txt']);
  await gw.stop();
});

/**
 * A process killed (an unexpected failure before the platform got the call) at the `n`th file
 * send, then a restart on the same data dir: the files and text the user already has are not
 * sent again, the rest are, from the copies in the data dir.
 */
async function restartAtFile(n: number, files: OutboundFile[]) {
  const state = createMemoryState();
  const adapter = new FakeFileAdapter(); // the platform outlives the process
  let sends = 0;
  adapter.beforeFile = () => {
    if (++sends === n) throw new Error('power cut');
  };
  const firstStore = createMemoryStore({ state });
  const first = setup({
    adapter,
    store: firstStore.delivery,
    agent: new FakeAgent(() => ({ text: 'Your files:', files })),
  });
  await first.gw.start();
  await adapter.say('files please');
  await first.gw.idle();
  await first.gw.stop();
  await firstStore.close();
  assert.equal(copies(state).length, files.length, 'the copies wait in the data dir');
  // The workspace files the agent read may change or vanish meanwhile: what was attached is sent.
  for (const f of files) f.bytes.fill(0x21);
  const store = createMemoryStore({ state });
  const second = setup({
    adapter,
    store: store.delivery,
    agent: new FakeAgent(() => assert.fail('must not run the agent again')),
  });
  await second.gw.start();
  await second.gw.idle();
  await second.gw.stop();
  const pending = await store.delivery.pendingOutbox();
  await store.close();
  return { adapter, state, pending };
}

test('a restart between the text and the file: each is delivered exactly once', async () => {
  const { adapter, state, pending } = await restartAtFile(1, [file('data.json', '{"ok":true}')]);
  assert.deepEqual(adapter.texts(), ['Your files:']);
  assert.deepEqual(adapter.fileNames(), ['data.json']);
  assert.equal(Buffer.from(adapter.files[0]!.bytes).toString(), '{"ok":true}');
  assert.deepEqual(pending, []);
  assert.deepEqual(copies(state), []);
});

test('a restart between two files: the first is not sent again, the second is sent once', async () => {
  const { adapter, state, pending } = await restartAtFile(2, [file('one.txt', 'first'), file('two.txt', 'second')]);
  assert.deepEqual(adapter.texts(), ['Your files:']);
  assert.deepEqual(adapter.fileNames(), ['one.txt', 'two.txt']);
  assert.deepEqual(
    adapter.files.map((f) => Buffer.from(f.bytes).toString()),
    ['first', 'second'],
  );
  assert.deepEqual(pending, []);
  assert.deepEqual(copies(state), []);
});

test('a platform without file sending: the user is told in one line per file, never silence', async () => {
  const { adapter, gw } = setup({
    adapter: new FakeAdapter(),
    agent: new FakeAgent(() => ({ text: 'Done.', files: [file('out.txt', 'x')] })),
  });
  await gw.start();
  await adapter.say('go');
  await gw.idle();
  assert.equal(adapter.texts().length, 2);
  assert.equal(adapter.texts()[0], 'Done.');
  assert.match(adapter.texts()[1]!, /could not attach the file out\.txt.*does not take files/);
  await gw.stop();
});

test('a file the platform refuses is named in a line; the files after it are still sent', async () => {
  const adapter = new FakeFileAdapter();
  adapter.beforeFile = (f) => {
    if (f.name === 'huge.bin') throw new AdapterApiError('telegram', 413, 'Request Entity Too Large');
  };
  const { gw, store } = setup({
    adapter,
    agent: new FakeAgent(() => ({ text: 'Two files.', files: [file('huge.bin', 'x'), file('small.txt', 'y')] })),
  });
  await gw.start();
  await adapter.say('go');
  await gw.idle();
  assert.equal(adapter.texts()[0], 'Two files.');
  assert.match(adapter.texts()[1]!, /could not attach the file huge\.bin: the platform refused it \(Request Entity/);
  assert.deepEqual(adapter.fileNames(), ['small.txt']);
  assert.deepEqual(await store.pendingOutbox(), []);
  await gw.stop();
});

test('a file send rate limited (429) or failing (5xx) is retried and arrives once', async () => {
  const adapter = new FakeFileAdapter();
  adapter.rateLimitMs = 1;
  let calls = 0;
  adapter.beforeFile = () => {
    calls++;
    if (calls === 1) throw new AdapterApiError('telegram', 429, 'Too Many Requests', 1);
    if (calls === 2) throw new AdapterApiError('telegram', 502, 'Bad Gateway');
  };
  const { gw } = setup({ adapter, agent: new FakeAgent(() => ({ text: 'Here.', files: [file('a.txt', 'a')] })) });
  await gw.start();
  await adapter.say('go');
  await gw.idle();
  assert.equal(calls, 3);
  assert.deepEqual(adapter.fileNames(), ['a.txt']);
  assert.deepEqual(adapter.texts(), ['Here.']);
  await gw.stop();
});

test('a file whose stored copy is gone at the restart is named in a line instead', async () => {
  const state = createMemoryState();
  const adapter = new FakeFileAdapter();
  let once = true;
  adapter.beforeFile = () => {
    if (once) {
      once = false;
      throw new Error('power cut');
    }
  };
  const firstStore = createMemoryStore({ state });
  const first = setup({
    adapter,
    store: firstStore.delivery,
    agent: new FakeAgent(() => ({ text: 'Here.', files: [file('lost.txt', 'gone')] })),
  });
  await first.gw.start();
  await adapter.say('go');
  await first.gw.idle();
  await first.gw.stop();
  await firstStore.close();
  for (const k of copies(state)) state.delete(k); // an admin cleaned the data dir
  const store = createMemoryStore({ state });
  const second = setup({ adapter, store: store.delivery, agent: new FakeAgent(() => assert.fail('no run')) });
  await second.gw.start();
  await second.gw.idle();
  assert.deepEqual(adapter.fileNames(), []);
  assert.match(adapter.texts()[1]!, /could not attach the file lost\.txt: its stored copy is gone/);
  assert.deepEqual(await store.delivery.pendingOutbox(), []);
  await second.gw.stop();
  await store.close();
});

test('a disk too full for the file copy delays the answer; once there is room, text and file arrive once', async () => {
  const state = createMemoryState();
  const disk = { full: true, refused: 0 };
  const base = createMemoryFiles(state, { now: Date.now });
  const docs = createDocuments(
    {
      ...base,
      async writeBytes(path, bytes) {
        if (disk.full) {
          disk.refused++;
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        }
        return base.writeBytes(path, bytes);
      },
    },
    { logger: silentLogger },
  );
  const { close, ...delivery } = createDeliveryLog(docs, {
    now: Date.now,
    seq: createSequence(Date.now),
    logger: silentLogger,
    maxAgeMs: 1e9,
    maxCount: 1000,
    failed: DEFAULT_FAILED_OUTBOX,
  });
  const store: GatewayStore = validatedDelivery({ ...delivery, answered: async () => false });
  const { adapter, gw } = setup({
    store,
    agent: new FakeAgent(() => ({ text: 'Saved it.', files: [file('big.csv', 'x,y')] })),
  });
  await gw.start();
  await adapter.say('go');
  await until(() => disk.refused >= 2, 'the copy refused while the disk is full');
  assert.deepEqual((adapter as FakeFileAdapter).files, [], 'nothing sent before the entry is saved');
  disk.full = false;
  await gw.idle();
  assert.equal(adapter.texts().filter((t) => t === 'Saved it.').length, 1);
  assert.deepEqual((adapter as FakeFileAdapter).fileNames(), ['big.csv']);
  assert.deepEqual(copies(state), []);
  await gw.stop();
  await close();
});
