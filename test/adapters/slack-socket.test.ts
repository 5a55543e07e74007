// Slack Socket Mode: envelopes are acknowledged once the sink accepted them; an envelope left
// unacknowledged (the sink failed) is redelivered by Slack with retry_attempt and then reaches
// the sink; a redelivery of an event still in the sink does not reach it twice.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DM_CHANNEL, GROUP_CHANNEL, recordingSlackAdapter } from '../emulators/slack/harness.ts';
import { until } from './contract.ts';

describe('slack Socket Mode', () => {
  const sink = recordingSlackAdapter('socket', {
    // Slack redelivers an envelope not acknowledged in time: long enough that a loaded machine acknowledges the
    // echoes before that (a redelivered echo is one more envelope), short enough for the redelivery tests.
    emulator: { ackTimeoutMs: 2000, maxRetries: 3, echoBotMessages: true },
  });
  const { got } = sink;

  test('the connection came from apps.connections.open with the app token, and Slack said hello', () => {
    assert.equal(sink.h.emu.api.count('apps.connections.open'), 1);
    assert.equal(sink.h.emu.link.connections, 1);
  });

  test('an envelope is acknowledged by its envelope_id once the sink accepted it', async () => {
    const post = await sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'ack me' });
    const rec = post.socket[0]!;
    await until(() => rec.acked, 'the ack');
    assert.deepEqual(
      got.map((m) => m.text),
      ['ack me'],
    );
    assert.equal(got[0]!.id, `slack:${rec.eventId}`);
  });

  test('an unacknowledged envelope is redelivered with retry_attempt and then delivered', async () => {
    let failures = 1;
    sink.behaviour = async () => {
      if (failures-- > 0) throw new Error('store unavailable');
    };
    const post = await sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'try again' });
    const rec = post.socket[0]!;
    await until(() => rec.acked, 'the ack of the redelivery');
    // First attempt 0 with no reason, then redeliveries numbered 1, 2, ... for `timeout`, each a new envelope.
    assert.ok(rec.sent.length >= 2);
    assert.deepEqual(
      rec.sent.map((e) => [e.retryAttempt, e.retryReason]),
      rec.sent.map((_, i) => [i, i === 0 ? '' : 'timeout']),
    );
    assert.equal(new Set(rec.sent.map((e) => e.envelopeId)).size, rec.sent.length);
    assert.equal(sink.calls, 2);
    assert.deepEqual(
      got.map((m) => m.text),
      ['try again'],
    );
  });

  test('a redelivery of an event still in the sink does not reach the sink again', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    sink.behaviour = () => held;
    const post = await sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'slow' });
    const rec = post.socket[0]!;
    await until(() => rec.attempts >= 2, 'a redelivery while the sink holds the first');
    release();
    await until(() => rec.acked, 'the ack');
    assert.equal(sink.calls, 1);
    assert.deepEqual(
      got.map((m) => m.text),
      ['slow'],
    );
  });

  test("the bot's own replies and edits, echoed back by Slack as events, never reach the sink", async () => {
    const post = await sink.h.emu.userSays({ channel: GROUP_CHANNEL, text: 'hi', mention: true });
    await until(() => got.length === 1, 'the mention');
    const target = { conversationKey: got[0]!.conversationKey, chatId: GROUP_CHANNEL, threadId: post.ts };
    const sent = await sink.h.adapter.send(target, 'hello', { format: 'plain' });
    await sink.h.adapter.edit(target, sent.messageId, 'hello again', { format: 'plain' });
    await sink.h.userSays({ text: 'marker', direct: true });
    await until(() => got.some((m) => m.text === 'marker'), 'the marker');
    const echoes = sink.h.emu.link.envelopes.filter(
      (e) =>
        (e.payload.event as { bot_id?: string; subtype?: string }).bot_id ||
        (e.payload.event as { subtype?: string }).subtype,
    );
    assert.equal(echoes.length, 2);
    await until(() => echoes.every((e) => e.acked), 'the echoes acknowledged');
    assert.deepEqual(
      got.map((m) => m.text),
      ['hi', 'marker'],
    );
  });

  const slackAsksRefreshTitle =
    'when Slack asks for a refresh and the first apps.connections.open fails, the adapter reconnects and keeps ' +
    'receiving';
  test(slackAsksRefreshTitle, async () => {
    const opens = sink.h.emu.api.count('apps.connections.open');
    sink.h.emu.api.failNext('apps.connections.open', { httpStatus: 503 });
    sink.h.emu.link.refresh();
    await until(
      () => sink.h.emu.api.count('apps.connections.open') === opens + 2 && sink.h.emu.link.connections === 1,
      'the reconnection',
    );
    await sink.h.userSays({ text: 'after the refresh', direct: true });
    await until(() => got.some((m) => m.text === 'after the refresh'), 'a message on the new connection');
  });

  test('an envelope without an event is acknowledged and dropped; the connection keeps working', async () => {
    const rec = sink.h.emu.link.deliver({
      type: 'event_callback',
      team_id: sink.h.emu.ids.teamId,
      event_id: 'Ev0NOEVENT',
    });
    await until(() => rec.acked, 'the ack of the bad envelope');
    await sink.h.userSays({ text: 'still here', direct: true });
    await until(() => got.some((m) => m.text === 'still here'), 'the next message');
    assert.equal(got.length, 1);
  });
});
