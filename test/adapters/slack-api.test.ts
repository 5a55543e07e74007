// How Slack's answers surface to the gateway: refusals as AdapterApiError with a meaningful
// status (retryable only for 429/5xx), markup refusals retried once as plain text, an
// unreachable Slack as AdapterNetworkError, and no silent retries by the client library.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AdapterApiError, AdapterNetworkError } from '../../src/adapters/index.ts';
import { createSlackAdapter } from '../../src/adapters/slack/index.ts';
import { DM_CHANNEL, type SlackHarness, slackHarness } from '../emulators/slack/harness.ts';

describe('slack Web API errors', () => {
  let h: SlackHarness;
  const target = { conversationKey: 'slack:T0EMU0001:D0DM000001', chatId: DM_CHANNEL };
  before(async () => {
    h = await slackHarness('socket');
    await h.adapter.start(async () => undefined);
  });
  after(async () => {
    await h.adapter.stop();
    await h.close();
  });

  test('a 429 is not retried by the client: one call, AdapterApiError 429 with Retry-After in ms', async () => {
    const calls = h.emu.api.count('chat.update');
    const sent = await h.adapter.send(target, 'draft', { format: 'plain' });
    h.emu.rateLimitNext(1, 7);
    await assert.rejects(h.adapter.edit(target, sent.messageId, 'more', { format: 'plain' }), (e: unknown) => {
      assert.ok(e instanceof AdapterApiError);
      assert.deepEqual([e.status, e.retryAfterMs, e.retryable], [429, 7000, true]);
      return true;
    });
    assert.equal(h.emu.api.count('chat.update') - calls, 1);
  });

  test('rejected markup is sent once more as plain text, so the user still gets the answer', async () => {
    h.emu.api.failNext('chat.postMessage', { error: 'invalid_blocks' });
    const sent = await h.adapter.send(target, '**sum** of a<b');
    const posted = h.emu.botMessages().find((b) => b.ts === sent.messageId)!;
    assert.equal(posted.text, '**sum** of a&lt;b');
  });

  test('a refusal that is not about markup is final and not retried', async () => {
    const calls = h.emu.api.count('chat.postMessage');
    h.emu.api.failNext('chat.postMessage', { error: 'not_in_channel' });
    await assert.rejects(h.adapter.send(target, 'hello'), (e: unknown) => {
      assert.ok(e instanceof AdapterApiError);
      assert.deepEqual([e.status, e.description, e.retryable, e.isMarkupError], [403, 'not_in_channel', false, false]);
      return true;
    });
    assert.equal(h.emu.api.count('chat.postMessage') - calls, 1);
  });

  test('editing a message that does not exist is a 404 refusal', async () => {
    await assert.rejects(
      h.adapter.edit(target, '1.000001', 'x'),
      (e: unknown) => e instanceof AdapterApiError && e.status === 404 && e.description === 'message_not_found',
    );
  });

  test('an HTTP 5xx from Slack is a retryable AdapterApiError', async () => {
    h.emu.api.failNext('chat.postMessage', { httpStatus: 503 });
    await assert.rejects(
      h.adapter.send(target, 'x'),
      (e: unknown) => e instanceof AdapterApiError && e.status === 503 && e.retryable,
    );
  });

  test('a wrong token fails start with a 401 refusal', async () => {
    const bad = createSlackAdapter({
      mode: 'socket',
      botToken: 'xoxb-wrong',
      appToken: h.emu.appToken,
      apiUrl: h.emu.apiUrl,
    });
    await assert.rejects(
      bad.start(async () => undefined),
      (e: unknown) => e instanceof AdapterApiError && e.status === 401 && e.description === 'invalid_auth',
    );
    const badApp = createSlackAdapter({
      mode: 'socket',
      botToken: h.emu.botToken,
      appToken: 'xapp-wrong',
      apiUrl: h.emu.apiUrl,
    });
    await assert.rejects(
      badApp.start(async () => undefined),
      (e: unknown) => e instanceof AdapterApiError && e.status === 401,
    );
  });

  test('an unreachable Slack is an AdapterNetworkError', async () => {
    const gone = createSlackAdapter({
      mode: 'http',
      botToken: 'xoxb-x',
      signingSecret: 's',
      apiUrl: 'http://127.0.0.1:9/api/',
    });
    await assert.rejects(gone.send(target, 'x'), (e: unknown) => e instanceof AdapterNetworkError && e.retryable);
  });

  test('missing secrets are refused at construction, naming the variable', () => {
    assert.throws(() => createSlackAdapter({ mode: 'socket', botToken: 'xoxb-1' }), /SLACK_APP_TOKEN/);
    assert.throws(() => createSlackAdapter({ mode: 'http', botToken: 'xoxb-1' }), /SLACK_SIGNING_SECRET/);
  });
});
