// Interaction tokens live 15 minutes: a deferred command answered later, or an edit of its
// answer after that, goes to the channel as usual instead of to a dead webhook.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InteractionReplies } from '../../src/adapters/discord/interaction-replies.ts';

test('a deferral is filled in once, by its own reply key, and only while its token lives', () => {
  let now = 0;
  const replies = new InteractionReplies(() => now);
  const ref = { applicationId: '1', token: 't' };
  replies.deferred('interaction:9', ref);
  assert.equal(replies.waiting('interaction:8'), undefined);
  const hook = replies.waiting('interaction:9');
  assert.equal(hook?.token, 't');
  assert.equal(replies.waiting('interaction:9')?.token, 't', 'still waiting until an answer went through');
  replies.answered('interaction:9', 'm0', hook!);
  assert.equal(replies.waiting('interaction:9'), undefined, 'filled in once');
  replies.deferred('interaction:10', ref);
  now = 15 * 60_000;
  assert.equal(replies.waiting('interaction:10'), undefined, 'expired');
  replies.answered('interaction:10', 'm1', { ...ref, until: now + 1000 });
  assert.equal(replies.forMessage('m1')?.token, 't');
  now += 1000;
  assert.equal(replies.forMessage('m1'), undefined);
});
