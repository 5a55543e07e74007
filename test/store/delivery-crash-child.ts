// Run by file-store.test.ts: accepts messages as fast as it can, many at once, printing each id
// once its accept resolved, until the parent kills it (SIGKILL, mid-append). It imports src/ only
// (its message is built here, as delivery-fixtures.ts builds one), so the parent runs it compiled
// (test/compiled-src.ts compiledChild) rather than through tsx.
import type { InboundMessage } from '../../src/adapters/index.ts';
import { createFileStore } from '../../src/store/index.ts';

const inbound = (id: string, conversationKey: string, text: string): InboundMessage => ({
  id,
  platform: 'web',
  conversationKey,
  chatId: conversationKey.split(':')[1] ?? 'a',
  userId: 'u1',
  userName: 'Ann',
  text,
  isDirect: true,
  mentionsBot: true,
  attachments: [],
  receivedAt: '2026-11-01T00:00:00.000Z',
  raw: { secret: 'platform payload' },
});

const dir = process.argv[2];
if (!dir) throw new Error('usage: delivery-crash-child.ts DIR');
const store = createFileStore(dir);
let n = 0;
const worker = async (): Promise<void> => {
  for (;;) {
    const id = `m${n++}`;
    if (await store.delivery.accept(inbound(id, `web:c${n % 5}`, 'x'.repeat(n % 300)))) process.stdout.write(`${id}\n`);
    if (n % 7 === 0) await store.delivery.finish(`m${n - 7}`);
  }
};
process.stdout.write('ready\n');
await Promise.all([worker(), worker(), worker(), worker()]);
