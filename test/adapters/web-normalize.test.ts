// The web chat's normalize step: what the page posts becomes the same InboundMessage and
// NormalizeResult as every platform; a bad body is malformed with every problem named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeConversationKey } from '../../src/adapters/index.ts';
import { normalizeWebMessage, normalizeWebPress } from '../../src/adapters/web/index.ts';

const at = new Date('2026-03-14T09:27:00Z');

test('a posted message is direct, addressed to the bot, and keyed by its session', () => {
  const r = normalizeWebMessage({ session: 'tab_1234', text: 'hello', id: 'msg-0001' }, at);
  assert.ok(r.kind === 'message');
  assert.deepEqual(r.message, {
    id: 'web:tab_1234:msg-0001',
    platform: 'web',
    conversationKey: 'web:tab_1234',
    chatId: 'tab_1234',
    messageId: 'msg-0001',
    userId: 'local',
    userName: 'you',
    text: 'hello',
    isDirect: true,
    mentionsBot: true,
    attachments: [],
    receivedAt: '2026-03-14T09:27:00.000Z',
    raw: null,
  });
  assert.deepEqual(decodeConversationKey(r.message.conversationKey), { platform: 'web', chatId: 'tab_1234' });
});

test('a very long text is cut to 100,000 characters', () => {
  const r = normalizeWebMessage({ session: 'tab_1234', text: 'x'.repeat(100_001), id: 'msg-0001' }, at);
  assert.ok(r.kind === 'message');
  assert.equal(r.message.text.length, 100_000);
});

const bad: [unknown, string[]][] = [
  [null, ['session', 'text', 'id']],
  ['text', ['session', 'text', 'id']],
  [{ session: 'short', text: 'hi', id: 'msg-0001' }, ['session']],
  [{ session: 'tab:1234', text: 'hi', id: 'msg-0001' }, ['session']],
  [{ session: 'tab_1234', text: '   ', id: 'msg-0001' }, ['text']],
  [{ session: 'tab_1234', text: 42, id: 'msg-0001' }, ['text']],
  [{ session: 'tab_1234', text: 'hi', id: 7 }, ['id']],
];

for (const [body, fields] of bad) {
  test(`${JSON.stringify(body)} is malformed, naming ${fields.join(', ')}`, () => {
    const r = normalizeWebMessage(body, at);
    assert.equal(r.kind, 'malformed');
    const reason = r.kind === 'malformed' ? r.reason : '';
    for (const f of ['session', 'text', 'id'])
      assert.equal(reason.includes(`${f} must`), fields.includes(f), `${f} in ${reason}`);
  });
}

test('attachments are uploaded file ids of the session; with files the text may be empty', () => {
  const id = 'a'.repeat(24);
  const r = normalizeWebMessage({ session: 'tab_1234', text: '', id: 'msg-0002', attachments: [id, id] }, at);
  assert.ok(r.kind === 'message');
  assert.deepEqual(r.message.attachments, [{ id: `tab_1234:${id}` }], 'one attachment per file, named by session');
  const bad = normalizeWebMessage({ session: 'tab_1234', text: 'x', id: 'msg-0003', attachments: ['../etc'] }, at);
  assert.deepEqual(bad, { kind: 'malformed', reason: 'attachments must be at most 10 uploaded file ids' });
  const empty = normalizeWebMessage({ session: 'tab_1234', text: ' ', id: 'msg-0004' }, at);
  assert.equal(empty.kind, 'malformed');
});

test('a button press is an empty message with the action set; bad ids are named', () => {
  const r = normalizeWebPress({ session: 'tab_1234', messageId: '17', button: 'deploy:yes' }, 'p1', at);
  assert.ok(r.kind === 'message');
  assert.equal(r.message.text, '');
  assert.equal(r.message.id, 'web:tab_1234:press:p1');
  assert.deepEqual(r.message.action, { id: 'deploy:yes', messageId: '17' });
  const bad = normalizeWebPress({ session: 'x', messageId: 'abc', button: 'b'.repeat(65) }, 'p2', at);
  assert.deepEqual(bad, {
    kind: 'malformed',
    reason:
      'session must be 8-64 letters, digits, _ or -; messageId must be a message id of this chat; ' +
      'button must be a button id (1-64 bytes)',
  });
});

test('Edit and Regenerate name the message whose turn they replace, in this session only', () => {
  const r = normalizeWebMessage({ session: 'tab_1234', text: 'again', id: 'msg-0005', replaces: 'msg-0004' }, at);
  assert.ok(r.kind === 'message');
  assert.equal(r.message.replacesTurn, 'web:tab_1234:msg-0004');
  for (const replaces of ['x', 42, '../tab_9999:msg', 'msg-0005'])
    assert.deepEqual(normalizeWebMessage({ session: 'tab_1234', text: 'a', id: 'msg-0005', replaces }, at), {
      kind: 'malformed',
      reason: 'replaces must be the id of an earlier message (8-64 letters, digits, _ or -)',
    });
});
