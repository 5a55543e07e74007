// Run by file-store.test.ts: updates a conversation's history and charges its usage (journaled
// documents), then dies by SIGKILL as soon as both resolved, before any checkpoint writes their files.
import { createFileStore } from '../../src/store/index.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: journal-crash-child.ts DIR');
const store = createFileStore(dir);
await store.conversations.setMessages('telegram:1', [{ role: 'user', content: [{ type: 'text', text: 'kept' }] }]);
await store.usage.add({
  conversationKey: 'telegram:1',
  userKey: 'telegram:u1',
  model: 'p/m',
  usage: { inputTokens: 3, outputTokens: 4 },
  costUsd: 0.25,
  at: '2026-01-02T10:00:00Z',
});
process.kill(process.pid, 'SIGKILL');
