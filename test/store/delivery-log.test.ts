// What only a failing disk shows about the delivery log: a change whose append fails is refused
// and undone (the caller may retry it), and the next change rewrites the file whole, so a torn
// append never sits in the middle of the log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/log.ts';
import { createDeliveryLog } from '../../src/store/delivery-log.ts';
import { createDocuments } from '../../src/store/documents.ts';
import type { Files } from '../../src/store/files.ts';
import { StoreError } from '../../src/store/index.ts';
import { createMemoryFiles } from '../../src/store/memory-files.ts';
import { createSequence } from '../../src/store/sequence.ts';
import { inbound, reply } from './delivery-fixtures.ts';

function open(state: Map<string, string>, failAppend: { next: boolean }) {
  const base = createMemoryFiles(state, { now: Date.now });
  const files: Files = {
    ...base,
    async openLog(path) {
      const log = await base.openLog(path);
      return {
        async append(text) {
          if (failAppend.next) {
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
