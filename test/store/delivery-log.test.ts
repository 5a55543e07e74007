// What only a failing disk shows about the delivery log: a change whose append fails is refused
// and undone (the caller may retry it), and the next change rewrites the file whole, so a torn
// append never sits in the middle of the log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/log.ts';
import { createDeliveryLog } from '../../src/store/delivery-log.ts';
import { createDocuments } from '../../src/store/documents.ts';
import type { Files } from '../../src/store/files.ts';
import { StoreError } from '../../src/store/index.ts';
import { createMemoryFiles } from '../../src/store/memory-files.ts';
import { createSequence } from '../../src/store/sequence.ts';
import { DEFAULT_FAILED_OUTBOX } from '../../src/store/validated.ts';
import { inbound, reply } from './delivery-fixtures.ts';

/** `next` fails an append; `pass` appends go through first. */
function open(state: Map<string, string>, failAppend: { next: boolean; pass?: number }) {
  const base = createMemoryFiles(state, { now: Date.now });
  const files: Files = {
    ...base,
    async openLog(path) {
      const log = await base.openLog(path);
      return {
        async append(text) {
          if (failAppend.next && failAppend.pass) failAppend.pass--;
          else if (failAppend.next) {
            failAppend.next = false;
            // Half of the line reached the file before the disk gave up.
            await log.append(text.slice(0, Math.ceil(text.length / 2)));
            throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
          }
          await log.append(text);
        },
        close: () => log.close(),
      };
    },
  };
  const docs = createDocuments(files, { logger: silentLogger });
  return createDeliveryLog(docs, {
    now: Date.now,
    seq: createSequence(Date.now),
    logger: silentLogger,
    maxAgeMs: 1e9,
    maxCount: 1000,
    failed: DEFAULT_FAILED_OUTBOX,
  });
}

test('a failed append is refused and undone; the next change rewrites the log whole', async () => {
  const state = new Map<string, string>();
  const fail = { next: false };
  const log = open(state, fail);
  assert.equal(await log.accept(inbound('a', 'web:x')), true);

  fail.next = true;
  await assert.rejects(
    log.accept(inbound('b', 'web:x')),
    (e: unknown) =>
      e instanceof StoreError && e.code === 'io' && /ENOSPC/.test(e.message) && /delivery\.log/.test(e.message),
  );
  assert.deepEqual(
    (await log.pending()).map((p) => p.message.id),
    ['a'],
    'the refused change is not in memory',
  );
  await log.notePreview('a', 'p1'); // the next change: the log is rewritten whole

  fail.next = true;
  await assert.rejects(log.putOutbox(reply('r', 'web:x', ['x'])), /ENOSPC/);
  assert.deepEqual(await log.pendingOutbox(), []);

  assert.equal(await log.accept(inbound('c', 'web:x')), true);
  await log.close();
  const text = state.get('delivery.log') ?? '';
  assert.ok(
    text
      .split('\n')
      .slice(0, -1)
      .every((line) => JSON.parse(line)),
    'no torn line left in the file',
  );

  const again = open(state, { next: false });
  assert.deepEqual(
    (await again.pending()).map((p) => p.message.id),
    ['a', 'c'],
  );
  assert.equal(
    await again.accept(inbound('b', 'web:x')),
    true,
    'nor was the refused id marked seen: the platform may redeliver it',
  );
  await again.close();
});

test('a refused reply and the message it answers change together: no append marks one without the other', async () => {
  const state = new Map<string, string>();
  const fail = { next: false, pass: 0 };
  const log = open(state, fail);
  assert.equal(await log.accept(inbound('m', 'web:x')), true);
  await log.putOutbox(reply('r', 'web:x', ['hello']));

  // Whatever the first append of the failure is, the disk gives up on the one after it.
  fail.next = true;
  fail.pass = 1;
  const refused = await log.failOutbox('r', 'chat not found', 'm').then(
    () => false,
    () => true,
  );
  fail.next = false;
  await log.close();

  const again = open(state, { next: false });
  const pending = (await again.pending()).map((p) => p.message.id);
  const outbox = (await again.pendingOutbox()).map((e) => e.id);
  // Resuming the entry after its message was marked answered would tell the user twice.
  assert.deepEqual({ pending, outbox }, refused ? { pending: ['m'], outbox: ['r'] } : { pending: [], outbox: [] });
  await again.close();
});
