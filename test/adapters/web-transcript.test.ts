// What the web chat shows of a stored conversation, and the browser's list of conversations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StoredConversation, sessionsOf, transcriptOf } from '../../src/adapters/web/transcript.ts';

const turn: StoredConversation['messages'] = [
  { role: 'user', content: [{ type: 'text', text: 'save it' }], inboundId: 'web:owner-tab1:m0001' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'On it.' },
      { type: 'tool-call', id: 'c1', name: 'write', input: { file_path: 'a.txt' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool-result', id: 'c1', name: 'write', content: 'ok', isError: false }] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', text: 'hidden' },
      { type: 'text', text: 'Saved.' },
    ],
  },
];

test('a stored turn becomes the user line, the answers, and a tools entry with input and result', () => {
  assert.deepEqual(transcriptOf(turn), [
    { role: 'user', text: 'save it', id: 'm0001' },
    { role: 'bot', text: 'On it.' },
    { role: 'tools', tools: [{ name: 'write', input: '{\n  "file_path": "a.txt"\n}', result: 'ok', isError: false }] },
    { role: 'bot', text: 'Saved.' },
  ]);
});

test("a browser's list: its own non-empty chats, newest first, titled by their first words", async () => {
  const docs: StoredConversation[] = [
    { key: 'web:ownerAAAAAAAAAAA-1', updatedAt: '2026-01-01T00:00:00Z', messages: turn },
    { key: 'web:ownerAAAAAAAAAAA-2', updatedAt: '2026-01-02T00:00:00Z', messages: turn.slice(0, 2) },
    { key: 'web:ownerAAAAAAAAAAA-3', updatedAt: '2026-01-03T00:00:00Z', messages: [] },
    { key: 'web:ownerBBBBBBBBBBB-1', updatedAt: '2026-01-04T00:00:00Z', messages: turn },
    { key: 'telegram:1', updatedAt: '2026-01-05T00:00:00Z', messages: turn },
  ];
  const source = {
    keys: async () => docs.map((d) => d.key),
    get: async (k: string) => docs.find((d) => d.key === k),
  };
  assert.deepEqual(await sessionsOf(source, 'ownerAAAAAAAAAAA'), [
    { session: 'ownerAAAAAAAAAAA-2', title: 'save it', updatedAt: '2026-01-02T00:00:00Z' },
    { session: 'ownerAAAAAAAAAAA-1', title: 'save it', updatedAt: '2026-01-01T00:00:00Z' },
  ]);
});
