// What a Slack user sees of answers with tables and quotes: a table arrives in a markdown block
// (Slack renders it as a table) with the mrkdwn text as fallback, on the post and on its edits;
// quoted user text reaches the agent as the user typed it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DM_CHANNEL, recordingSlackAdapter } from '../emulators/slack/harness.ts';
import { eventCallback } from '../emulators/slack/payloads.ts';
import { until } from './contract.ts';

const target = { chatId: DM_CHANNEL, conversationKey: `slack:T:${DM_CHANNEL}` };
const table = '| a | b |\n|---|---|\n| 1 | 2 |';

// @slack/web-api sends arguments form-encoded, with objects such as blocks as JSON strings.
const blocksOf = (params: Record<string, unknown>): unknown =>
  typeof params.blocks === 'string' ? JSON.parse(params.blocks) : params.blocks;

describe('slack blocks', () => {
  const sink = recordingSlackAdapter('socket');

  test('a table goes out in a markdown block on send and edit; the text is the mrkdwn fallback', async () => {
    const sent = await sink.h.adapter.send(target, `Here:\n${table}`);
    const post = sink.h.emu.api.calls.find((c) => c.method === 'chat.postMessage')!;
    assert.deepEqual(blocksOf(post.params), [{ type: 'markdown', text: `Here:\n${table}` }]);
    assert.equal(post.params.text, 'Here:\n```\na | b\n--+--\n1 | 2\n```');

    await sink.h.adapter.edit(target, sent.messageId, `Here:\n${table}\n| 3 | 4 |`);
    const update = sink.h.emu.api.calls.find((c) => c.method === 'chat.update')!;
    assert.deepEqual(blocksOf(update.params), [{ type: 'markdown', text: `Here:\n${table}\n| 3 | 4 |` }]);
  });

  test('an answer without a table is mrkdwn text only, its quotes as quotes', async () => {
    await sink.h.adapter.send(target, '> said **this**');
    const post = sink.h.emu.api.calls.findLast((c) => c.method === 'chat.postMessage')!;
    assert.equal(post.params.blocks, undefined);
    assert.equal(post.params.text, '> said *this*');
  });

  test('a plain-format send has no blocks', async () => {
    await sink.h.adapter.send(target, table, { format: 'plain' });
    const post = sink.h.emu.api.calls.findLast((c) => c.method === 'chat.postMessage')!;
    assert.equal(post.params.blocks, undefined);
  });

  test('the entities Slack puts in user text are decoded in the inbound text', async () => {
    const event = {
      type: 'message',
      channel: DM_CHANNEL,
      channel_type: 'im',
      user: 'U0ALICE001',
      text: '&gt; quoted &lt;b&gt; &amp;amp;',
      ts: '1712000000.000100',
    };
    await sink.h.emu.deliverBody(eventCallback(sink.h.emu.ids, event));
    await until(() => sink.got.length === 1, 'the message');
    assert.equal(sink.got[0]!.text, '> quoted <b> &amp;');
  });
});
