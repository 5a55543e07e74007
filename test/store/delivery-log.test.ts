// What only a failing disk shows about the delivery log: a change whose append fails is refused
// and undone (the caller may retry it), and the next change rewrites the file whole, so a torn
// append never sits in the middle of the log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/log.ts';
import { createDeliveryLog } from '../../src/store/delivery-log.ts';
import { createDocuments } from '../../src/store/documents.ts';
import type { Files } from '../../src/store/files.ts';
import { createMemoryFiles } from '../../src/store/memory-files.ts';
import { createSequence } from '../../src/store/sequence.ts';
import { StoreError } from '../../src/store/index.ts';

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
  return createDeliveryLog(docs, { now: Date.now, seq: createSequence(Date.now), logger: silentLogger, maxAgeMs: 1e9, maxCount: 1000 });
}

test('a failed append is refused and undone; the next change rewrites the log whole', async () => {
  const state = new Map<string, string>();
  const fail = { next: false };
  const log = open(state, fail);
  assert.ok(await log.inbound.acceptOnce({ id: 'a', conversationKey: 'web:x', message: {} }));

  fail.next = true;
  await assert.rejects(
    log.inbound.acceptOnce({ id: 'b', conversationKey: 'web:x', message: {} }),
    (e: unknown) => e instanceof StoreError && e.code === 'io' && /ENOSPC/.test(e.message) && /delivery\.log/.test(e.message),
  );
  assert.deepEqual((await log.inbound.pending()).map((p) => p.id), ['a'], 'the refused change is not in memory');
  assert.equal(await log.dedupe.markSeen('b'), true, 'nor is its id marked seen: the platform may redeliver it');

  fail.next = true;
  await assert.rejects(log.outbox.put({ id: 'r', conversationKey: 'web:x', target: {}, chunks: ['x'] }), /ENOSPC/);
  assert.equal(await log.outbox.get('r'), undefined);

  assert.ok(await log.inbound.acceptOnce({ id: 'c', conversationKey: 'web:x', message: {} }));
  await log.close();
  const text = state.get('delivery.log') ?? '';
  assert.ok(text.split('\n').slice(0, -1).every((line) => JSON.parse(line)), 'no torn line left in the file');

  const again = open(state, { next: false });
  assert.deepEqual((await again.inbound.pending()).map((p) => p.id), ['a', 'c']);
  assert.equal(await again.dedupe.markSeen('b'), false, 'b was marked seen after the failure');
  await again.close();
});
