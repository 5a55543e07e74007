// Run by file-store.test.ts: writes version 1, then dies by SIGKILL inside the writes of
// version 2: kv's after its temp file was fsynced and before it was renamed, the conversation's
// (journaled) before its append.
import { createFileStore } from '../../src/store/index.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: crash-child.ts DIR');
let armed = false;
let commits = 0;
const store = createFileStore(dir, {
  beforeCommit: async () => {
    if (!armed) return;
    // The first write waits here, fsynced but not renamed, until the second arrives.
    if (++commits === 2) process.kill(process.pid, 'SIGKILL');
    // Parked on a promise nothing settles: only the other write's pending I/O keeps the process alive, and a
    // store that made it wait for this one would let Node exit at once (code 13, nothing said). The timer keeps
    // it alive and ends such a wait naming it.
    setTimeout(() => {
      process.stderr.write('crash-child: the second write never reached its commit point\n');
      process.exit(3);
    }, 60_000);
    await new Promise(() => undefined);
  },
});
await store.conversations.setMessages('telegram:1', [{ role: 'user', content: [{ type: 'text', text: 'old' }] }]);
await store.kv.set('telegram.offset', 1);
armed = true;
// Both writes are in flight at once; the second to reach its commit kills the process.
await Promise.all([
  store.conversations.setMessages('telegram:1', [{ role: 'user', content: [{ type: 'text', text: 'new' }] }]),
  store.kv.set('telegram.offset', 2),
]);
