// Slack's in-chat controls through Bolt, over HTTP and Socket Mode: `/boxbot <command> [arg]`
// slash commands and button presses (block_actions) reach the sink signed-only and once, a
// command the sink refused is answered to its sender, and answers to presses are ephemeral.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DM_CHANNEL, GROUP_CHANNEL, recordingSlackAdapter } from '../emulators/slack/harness.ts';
import { until } from './contract.ts';

const target = { chatId: DM_CHANNEL, conversationKey: `slack:T:${DM_CHANNEL}` };

describe('slack slash commands and buttons over HTTP', () => {
  const sink = recordingSlackAdapter('http');

  test('a signed slash command is acknowledged 200 and arrives as /command arg; a bare one as /help', async () => {
    const d = await sink.h.emu.slashCommand({ channel: GROUP_CHANNEL, text: 'model  openai/gpt-4o', user: 'U0ADA' });
    assert.equal(d.http!.attempts[0]!.status, 200);
    await sink.h.emu.slashCommand({ channel: DM_CHANNEL, text: '' });
    await until(() => sink.got.length === 2, 'both commands');
    const [model, help] = sink.got;
    assert.deepEqual(
      [model!.text, model!.userId, model!.isDirect, model!.mentionsBot],
      ['/model openai/gpt-4o', 'U0ADA', false, true],
    );
    assert.equal(model!.conversationKey, `slack:${sink.h.emu.ids.teamId}:${GROUP_CHANNEL}`);
    assert.deepEqual([help!.text, help!.isDirect], ['/help', true]);
  });

  test('a press with a forged signature is refused with 401 and nothing is delivered', async () => {
    const sent = await sink.h.adapter.send(target, 'ok?', { buttons: [{ id: 'yes', label: 'Yes' }] });
    const form = new URLSearchParams({ payload: JSON.stringify({ type: 'block_actions', actions: [] }) }).toString();
    const res = await sink.h.emu.events.post(form, {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-signature': `v0=${'0'.repeat(64)}`,
    });
    assert.equal(res.status, 401);
    const press = await sink.h.emu.pressButton({ channel: DM_CHANNEL, ts: sent.messageId, actionId: 'yes' });
    assert.equal(press.http!.attempts[0]!.status, 200);
    await until(() => sink.got.length === 1, 'the genuine press');
    assert.equal(sink.calls, 1);
    assert.equal(sink.got[0]!.action?.id, 'yes');
  });

  test("Slack's unsigned ssl_check is answered and delivers nothing", async () => {
    const res = await sink.h.emu.events.post('ssl_check=1&token=x', {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-signature': '',
    });
    assert.equal(res.status, 200);
    assert.equal(sink.calls, 0);
  });

  test('a command the sink refused is answered to its sender only, asking to try again', async () => {
    sink.behaviour = async () => {
      throw new Error('store unavailable');
    };
    const d = await sink.h.emu.slashCommand({ channel: DM_CHANNEL, text: 'usage' });
    const attempt = d.http!.attempts[0]!;
    assert.equal(attempt.status, 200);
    assert.deepEqual(JSON.parse(attempt.body), {
      response_type: 'ephemeral',
      text: 'boxbot could not take that now; try again.',
    });
    assert.equal(sink.got.length, 0);
  });
});

describe('slack slash commands and buttons over Socket Mode', () => {
  const sink = recordingSlackAdapter('socket');

  test('a redelivered press is acknowledged again but reaches the sink once', async () => {
    const sent = await sink.h.adapter.send(target, 'go?', { buttons: [{ id: 'go', label: 'Go', style: 'primary' }] });
    const first = await sink.h.emu.pressButton({ channel: DM_CHANNEL, ts: sent.messageId, actionId: 'go' });
    await until(() => first.socket!.acked, 'the first envelope acknowledged');
    await sink.h.emu.redeliverInteraction(first);
    await until(
      () => sink.h.emu.link.envelopes.filter((e) => e.type === 'interactive' && e.acked).length === 2,
      'both',
    );
    assert.equal(sink.calls, 1);
    assert.deepEqual(sink.got[0]!.action, {
      id: 'go',
      messageId: sent.messageId,
      handle: (first.body as { response_url: string }).response_url,
    });
  });

  test('a slash command envelope is acknowledged after the sink accepted it', async () => {
    let release!: () => void;
    sink.behaviour = () => new Promise<void>((r) => (release = r));
    const d = await sink.h.emu.slashCommand({ channel: DM_CHANNEL, text: 'new' });
    await until(() => sink.calls === 1, 'the command in the sink');
    assert.equal(d.socket!.acked, false);
    release();
    await until(() => d.socket!.acked, 'the acknowledgement');
    assert.equal(sink.got[0]!.text, '/new');
  });

  test('a refused command is answered in the envelope acknowledgement, to its sender only', async () => {
    sink.behaviour = async () => {
      throw new Error('store unavailable');
    };
    const d = await sink.h.emu.slashCommand({ channel: DM_CHANNEL, text: 'usage' });
    await until(() => d.socket!.acked, 'the acknowledgement');
    assert.deepEqual(d.socket!.response, {
      response_type: 'ephemeral',
      text: 'boxbot could not take that now; try again.',
    });
  });

  test('buttons follow a table in its markdown block; removing them clears the blocks', async () => {
    const table = '| a | b |\n|---|---|\n| 1 | 2 |';
    const sent = await sink.h.adapter.send(target, table, { buttons: [{ id: 'ok', label: 'OK' }] });
    const m = sink.h.emu.workspace.find(DM_CHANNEL, sent.messageId)!;
    assert.deepEqual(
      (m.blocks as { type: string }[]).map((b) => b.type),
      ['markdown', 'actions'],
    );
    await sink.h.adapter.edit(target, sent.messageId, 'done', { buttons: [] });
    assert.equal(m.blocks, undefined);
    assert.equal(m.text, 'done');
  });

  test('sendPrivate (a /web link) is an ephemeral message to the speaker in their channel', async () => {
    await sink.h.adapter.sendPrivate!(
      { chatId: GROUP_CHANNEL, userId: 'U0ADA' },
      'Your link: https://x.example/login/t',
    );
    assert.deepEqual(sink.h.emu.workspace.ephemeral.at(-1), {
      channel: GROUP_CHANNEL,
      user: 'U0ADA',
      text: 'Your link: https://x.example/login/t',
    });
  });

  test('answerPress is an ephemeral message to the presser in the press’s channel', async () => {
    const sent = await sink.h.adapter.send(target, 'vote', { buttons: [{ id: 'v', label: 'Vote' }] });
    await sink.h.emu.pressButton({ channel: DM_CHANNEL, ts: sent.messageId, actionId: 'v', user: 'U0BOB' });
    await until(() => sink.got.length === 1, 'the press');
    await sink.h.adapter.answerPress!(sink.got[0]!, 'Counted <yours> & only yours');
    assert.deepEqual(sink.h.emu.workspace.ephemeral.at(-1), {
      channel: DM_CHANNEL,
      user: 'U0BOB',
      text: 'Counted &lt;yours&gt; &amp; only yours',
    });
  });
});
