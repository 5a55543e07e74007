// Typed identities, each with one encode and one decode: platform names, user keys (who speaks)
// and reply targets (where an answer goes, as stored with an approval). Conversation keys have
// their own file (conversation-key.test.ts); here they appear as the key of a reply target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ConversationKey,
  decodeConversationKey,
  decodeUserKey,
  encodeConversationKey,
  encodeUserKey,
  IdentityError,
  type InboundMessage,
  isPlatform,
  PLATFORMS,
  parsePlatform,
  parseReplyTarget,
  platformOf,
  type ReplyTarget,
  replyTargetOf,
  targetOf,
  type UserRef,
} from '../../src/adapters/index.ts';
import { BoxbotError } from '../../src/core/errors.ts';

const refusedWith = (code: string, why: RegExp) => (e: unknown) =>
  e instanceof IdentityError && e instanceof BoxbotError && e.code === code && !e.retryable && why.test(e.message);

test('every platform parses as itself; anything else is refused, naming the platforms there are', () => {
  for (const p of PLATFORMS) {
    assert.equal(parsePlatform(p), p);
    assert.ok(isPlatform(p));
  }
  for (const text of ['', 'irc', 'Telegram', 'telegram ', 'web:1'])
    assert.throws(() => parsePlatform(text), refusedWith('unknown-platform', /expected telegram, .* or terminal/));
});

const users: [string, UserRef][] = [
  ['telegram:4242', { platform: 'telegram', userId: '4242' }],
  ['discord:80351110224678912', { platform: 'discord', userId: '80351110224678912' }],
  ['slack:U024BE7LH', { platform: 'slack', userId: 'U024BE7LH' }],
  // A web chat's speaker is the browser owning the session (a digest, may hold any non-space text).
  ['web:Zm9v-YmFy_1', { platform: 'web', userId: 'Zm9v-YmFy_1' }],
  ['terminal:local', { platform: 'terminal', userId: 'local' }],
  // Only the first colon ends the platform.
  ['web:a:b', { platform: 'web', userId: 'a:b' }],
];

for (const [key, ref] of users) {
  test(`user key ${key} decodes and encodes back`, () => {
    assert.deepEqual(decodeUserKey(key), ref);
    assert.equal(encodeUserKey(ref), key);
  });
}

test('a speaker of an inbound message encodes as its platform and user id (what usage and admins are keyed by)', () => {
  const msg: Pick<InboundMessage, 'platform' | 'userId'> = { platform: 'slack', userId: 'U1' };
  assert.equal(encodeUserKey(msg), 'slack:U1');
});

for (const [key, why] of [
  ['4242', /expected <platform>:<userId>/],
  ['irc:nick', /unknown platform/],
  ['telegram:', /user id must be non-empty/],
  ['telegram:42 43', /without white space/],
] as const) {
  test(`user key ${JSON.stringify(key)} is refused, saying why`, () => {
    assert.throws(() => decodeUserKey(key), refusedWith('bad-user-key', why));
  });
}

test('encodeUserKey refuses what it could not decode again', () => {
  assert.throws(() => encodeUserKey({ platform: 'telegram', userId: '' }), refusedWith('bad-user-key', /non-empty/));
  assert.throws(
    () => encodeUserKey({ platform: 'irc' as never, userId: 'x' }),
    refusedWith('bad-user-key', /unknown platform/),
  );
});

test('a conversation key error is an identity error with its own code', () => {
  assert.throws(() => decodeConversationKey('irc:#chan'), refusedWith('bad-conversation-key', /unknown platform/));
});

test('encodeConversationKey gives a typed key whose platform is known to the type', () => {
  const key: ConversationKey = encodeConversationKey({ platform: 'telegram', chatId: '-100123', threadId: '45' });
  assert.equal(key, 'telegram:-100123:45');
  const platform: 'telegram' | 'discord' | 'slack' | 'web' | 'terminal' = platformOf(key);
  assert.equal(platform, 'telegram');
});

const messages: [Pick<InboundMessage, 'conversationKey' | 'chatId' | 'threadId' | 'messageId'>, ReplyTarget][] = [
  [
    { conversationKey: 'telegram:-100123', chatId: '-100123', messageId: '9' },
    { conversationKey: 'telegram:-100123', chatId: '-100123', replyToMessageId: '9' },
  ],
  [
    { conversationKey: 'telegram:-100123:45', chatId: '-100123', threadId: '45', messageId: '10' },
    { conversationKey: 'telegram:-100123:45', chatId: '-100123', threadId: '45', replyToMessageId: '10' },
  ],
  [
    { conversationKey: 'slack:T1:C9:1712.33', chatId: 'C9', threadId: '1712.33', messageId: '1712.40' },
    { conversationKey: 'slack:T1:C9:1712.33', chatId: 'C9', threadId: '1712.33', replyToMessageId: '1712.40' },
  ],
  [
    { conversationKey: 'discord:111:222:333', chatId: '222', threadId: '333' },
    { conversationKey: 'discord:111:222:333', chatId: '222', threadId: '333' },
  ],
  [
    { conversationKey: 'web:abc-tab1', chatId: 'abc-tab1' },
    { conversationKey: 'web:abc-tab1', chatId: 'abc-tab1' },
  ],
];

for (const [msg, target] of messages) {
  test(`the reply target of a message in ${msg.conversationKey} round-trips through the store's JSON`, () => {
    assert.deepEqual(replyTargetOf(msg), target);
    assert.deepEqual(parseReplyTarget(JSON.parse(JSON.stringify(replyTargetOf(msg)))), target);
  });
}

test("a conversation's reply target (a job's, a resumed entry's) parses back as itself", () => {
  for (const key of ['telegram:-100123:45', 'slack:T1:C9', 'discord:dm:555', 'web:abc'])
    assert.deepEqual(parseReplyTarget(targetOf(key)), targetOf(key));
});

test('fields a later version adds to a stored target are dropped, not refused', () => {
  assert.deepEqual(parseReplyTarget({ conversationKey: 'web:a', chatId: 'a', lane: 'x' }), {
    conversationKey: 'web:a',
    chatId: 'a',
  });
});

for (const [value, why] of [
  [null, /expected an object/],
  [['web:a'], /expected an object/],
  ['web:a', /expected an object/],
  [{ chatId: 'a' }, /conversationKey must be a non-empty string, got undefined/],
  [{ conversationKey: 'web:a' }, /chatId must be a non-empty string/],
  [{ conversationKey: 'web:a', chatId: 7 }, /chatId must be a non-empty string, got 7/],
  [{ conversationKey: 'web:a', chatId: 'a', threadId: '' }, /threadId must be a non-empty string/],
  [{ conversationKey: 'web:a', chatId: 'a', replyToMessageId: 5 }, /replyToMessageId/],
  [{ conversationKey: 'irc:#chan', chatId: '#chan' }, /names no platform boxbot speaks/],
] as const) {
  test(`stored target ${JSON.stringify(value)} is refused, naming the field`, () => {
    assert.throws(() => parseReplyTarget(value), refusedWith('bad-reply-target', why));
  });
}
