// What the web chat shows of a stored conversation, and the browser's list of conversations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StoredConversation, sessionsOf, transcriptOf } from '../../src/adapters/web/transcript.ts';
import { registerSecrets } from '../../src/core/redact.ts';
import { mediaInput } from '../../src/runner/media-input.ts';

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

test('a tool entry shows its input and output with secrets redacted, capped', () => {
  registerSecrets(['hunter2-registered-secret']);
  const [tools] = transcriptOf([
    {
      role: 'assistant',
      content: [{ type: 'tool-call', id: 'c1', name: 'bash', input: { command: 'echo $TOKEN' } }],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool-result',
          id: 'c1',
          name: 'bash',
          content: `token hunter2-registered-secret and sk-abcdef1234567890 ${'x'.repeat(5000)}`,
          isError: false,
        },
      ],
    },
  ]);
  assert.equal(tools?.role, 'tools');
  const result = tools?.role === 'tools' ? tools.tools[0]!.result! : '';
  assert.ok(result.startsWith('token [redacted] and [redacted] x'), result.slice(0, 60));
  assert.doesNotMatch(result, /hunter2|sk-abc/);
  assert.equal(result.split('\n…')[0]!.length, 4000, 'capped at 4000 characters');
  assert.match(result, /\n… \[truncated: \d{4} characters in all\]$/, 'saying it was cut');
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

test("a turn that brought files shows the user's words and the files' names, not the note for the model", () => {
  // The stored text as the gateway writes it: the user's words, the saved files, a document's text.
  const stored = (said: string) =>
    mediaInput(
      said,
      {
        notices: [],
        files: [
          {
            path: 'inbox/20261124-093000-3f2a-cat-1.png',
            originalName: 'cat.png',
            mimeType: 'image/png',
            size: 2048,
            family: 'image',
            kind: 'image',
            image: { mediaType: 'image/png', data: 'AAAA' },
          },
          {
            path: 'inbox/20261124-093000-3f2a-plans-2.txt',
            mimeType: 'text/plain',
            size: 40,
            family: 'text',
            kind: 'document',
            text: { content: 'secret plans inside', truncated: false },
          },
        ],
      },
      { vision: true },
    ).text;
  const entries = transcriptOf([
    { role: 'user', content: [{ type: 'text', text: stored('what are these?') }], inboundId: 'web:o-tab1:m0001' },
    { role: 'assistant', content: [{ type: 'text', text: 'A cat and a plan.' }] },
    { role: 'user', content: [{ type: 'text', text: stored('') }], inboundId: 'web:o-tab1:m0002' },
  ]);
  assert.deepEqual(entries, [
    { role: 'user', text: 'what are these?\n📎 cat.png\n📎 plans-2.txt', id: 'm0001' },
    { role: 'bot', text: 'A cat and a plan.' },
    { role: 'user', text: '📎 cat.png\n📎 plans-2.txt', id: 'm0002' },
  ]);
});
