// Run by file-store.test.ts: accepts messages as fast as it can, many at once, printing each id
// once its acceptOnce resolved, until the parent kills it (SIGKILL, mid-append).
import { createFileStore } from '../../src/store/index.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: delivery-crash-child.ts DIR');
const store = createFileStore(dir);
let n = 0;
const worker = async (): Promise<void> => {
  for (;;) {
    const id = `m${n++}`;
    const r = await store.inbound.acceptOnce({ id, conversationKey: `web:c${n % 5}`, message: { text: 'x'.repeat(n % 300) } });
    if (r) process.stdout.write(`${id}\n`);
    if (n % 7 === 0) await store.inbound.done(`m${n - 7}`);
  }
};
process.stdout.write('ready\n');
await Promise.all([worker(), worker(), worker(), worker()]);
