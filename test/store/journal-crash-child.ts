// Run by file-store.test.ts: updates a conversation's history and charges its usage (journaled
// documents), then dies by SIGKILL as soon as both resolved, before any checkpoint writes their files.
// With `in-line`, as the agent runner saves a turn: the history is written once the charge is in the
// journal's line (UsageStore.add's `queued`), and the process dies as soon as the history alone resolved.
import { createFileStore } from '../../src/store/index.ts';

const [dir, mode] = process.argv.slice(2);
if (!dir) throw new Error('usage: journal-crash-child.ts DIR [in-line]');
const store = createFileStore(dir);
const history = () =>
  store.conversations.setMessages('telegram:1', [{ role: 'user', content: [{ type: 'text', text: 'kept' }] }]);
const charge = {
  conversationKey: 'telegram:1',
  userKey: 'telegram:u1',
  model: 'p/m',
  usage: { inputTokens: 3, outputTokens: 4 },
  costUsd: 0.25,
  at: '2026-01-02T10:00:00Z',
};
if (mode === 'in-line') {
  let saved: Promise<unknown> | undefined;
  void store.usage.add(charge, {
    queued: () => {
      saved = history();
    },
  });
  while (!saved) await new Promise((r) => setImmediate(r));
  await saved;
} else {
  await history();
  await store.usage.add(charge);
}
process.kill(process.pid, 'SIGKILL');
