// Run by file-store.test.ts: accepts messages as fast as it can, many at once, printing each id
// once its accept resolved, until the parent kills it (SIGKILL, mid-append). The parent runs it
// compiled (test/compiled-src.ts compiledChild) rather than through tsx.
import { createFileStore } from '../../src/store/index.ts';
import { inbound } from './delivery-fixtures.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: delivery-crash-child.ts DIR');
const store = createFileStore(dir);
let n = 0;
const worker = async (): Promise<void> => {
  for (;;) {
    const id = `m${n++}`;
    if (await store.delivery.accept(inbound(id, `web:c${n % 5}`, { text: 'x'.repeat(n % 300) })))
      process.stdout.write(`${id}\n`);
    if (n % 7 === 0) await store.delivery.finish(`m${n - 7}`);
  }
};
process.stdout.write('ready\n');
await Promise.all([worker(), worker(), worker(), worker()]);
