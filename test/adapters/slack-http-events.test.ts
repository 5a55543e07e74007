// Slack HTTP Events mode: only signed, fresh requests deliver; url_verification is answered;
// a redelivery (X-Slack-Retry-Num) of an event already seen is acknowledged without a second
// delivery, and a delivery the sink refused is delivered by Slack's retry.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { DM_CHANNEL, GROUP_CHANNEL, recordingSlackAdapter, slackHarness } from '../emulators/slack/harness.ts';
import { until } from './contract.ts';

describe('slack HTTP events', () => {
  const sink = recordingSlackAdapter('http');
  const { got } = sink;

  const dmBody = (text: string): string =>
    JSON.stringify({
      type: 'event_callback',
      team_id: sink.h.emu.ids.teamId,
      event_id: `Ev${Date.now()}`,
      event: {
        type: 'message',
        channel: DM_CHANNEL,
        channel_type: 'im',
        user: 'U0USER0001',
        text,
        ts: '1712000000.000100',
      },
    });

  test('a bad signature is refused with 401 and nothing is delivered', async () => {
    const body = dmBody('forged');
    const ts = String(Math.floor(Date.now() / 1000));
    const res = await sink.h.emu.events.post(body, {
      'x-slack-request-timestamp': ts,
      'x-slack-signature': `v0=${'0'.repeat(64)}`,
    });
    assert.equal(res.status, 401);
    // A genuine signature, but of another body (a tampered payload).
    const other = await sink.h.emu.events.post(body, {
      'x-slack-signature': sink.h.emu.events.sign(body.replace('forged', 'tampered'), ts)['x-slack-signature']!,
    });
    assert.equal(other.status, 401);
    const missing = await sink.h.emu.events.post(body, { 'x-slack-signature': '' });
    assert.equal(missing.status, 401);
    await sink.h.userSays({ text: 'marker', direct: true });
    await until(() => got.some((m) => m.text === 'marker'), 'the marker');
    assert.deepEqual(
      got.map((m) => m.text),
      ['marker'],
    );
  });

  test('a correctly signed but stale request (6 minutes old) is refused with 401', async () => {
    const body = dmBody('replayed');
    const old = String(Math.floor(Date.now() / 1000) - 360);
    const res = await sink.h.emu.events.post(body, sink.h.emu.events.sign(body, old));
    assert.equal(res.status, 401);
    const fresh = await sink.h.emu.events.post(body);
    assert.equal(fresh.status, 200);
    assert.deepEqual(
      got.map((m) => m.text),
      ['replayed'],
    );
  });

  test('the url_verification challenge is answered', async () => {
    const body = readFileSync(new URL('../fixtures/slack/url-verification.json', import.meta.url), 'utf8');
    const res = await sink.h.emu.events.post(body);
    assert.equal(res.status, 200);
    assert.equal(res.body, '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');
    assert.equal(sink.calls, 0);
  });

  test('a redelivery (X-Slack-Retry-Num) of an event already delivered gets 200 and no second sink call', async () => {
    const post = await sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'only once' });
    const rec = post.http[0]!;
    assert.equal(rec.attempts[0]!.status, 200);
    const retry1 = await sink.h.emu.events.redeliver(rec, 'http_timeout');
    const retry2 = await sink.h.emu.events.redeliver(rec, 'http_timeout');
    assert.deepEqual([retry1.retryNum, retry1.status, retry2.retryNum, retry2.status], [1, 200, 2, 200]);
    assert.equal(sink.calls, 1);
    assert.equal(got[0]!.id, `slack:${post.eventIds[0]}`);
  });

  test('a redelivery arriving while the first delivery is still in the sink joins it', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    sink.behaviour = () => held;
    const first = sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'slow one' });
    await until(() => sink.calls === 1, 'the first delivery in the sink');
    const rec = sink.h.emu.events.deliveries.at(-1)!;
    const retry = sink.h.emu.events.redeliver(rec, 'http_timeout');
    release();
    const [post, again] = await Promise.all([first, retry]);
    assert.equal(post.http[0]!.attempts[0]!.status, 200);
    assert.equal(again.status, 200);
    assert.equal(sink.calls, 1);
    assert.deepEqual(
      got.map((m) => m.text),
      ['slow one'],
    );
  });

  test('when the sink refuses, Slack gets a 5xx and its retry is delivered', async () => {
    let failures = 1;
    sink.behaviour = async () => {
      if (failures-- > 0) throw new Error('store unavailable');
    };
    const post = await sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'second time lucky' });
    const rec = post.http[0]!;
    assert.equal(rec.attempts[0]!.status, 500);
    assert.equal(got.length, 0);
    const retry = await sink.h.emu.events.redeliver(rec, 'http_error');
    assert.equal(retry.status, 200);
    assert.deepEqual(
      got.map((m) => m.text),
      ['second time lucky'],
    );
  });

  test('a channel mention over HTTP arrives once although Slack sends it as message and app_mention', async () => {
    const post = await sink.h.emu.userSays({ channel: GROUP_CHANNEL, text: 'ping', mention: true });
    assert.equal(post.eventIds.length, 2);
    assert.ok(post.http.every((r) => r.attempts[0]!.status === 200));
    assert.equal(got.length, 1);
    assert.equal(got[0]!.mentionsBot, true);
  });

  test('while stopped the route answers 503 (Slack keeps the event) and nothing is delivered', async () => {
    await sink.h.adapter.stop();
    try {
      const post = await sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'not now' });
      assert.equal(post.http[0]!.attempts[0]!.status, 503);
      assert.equal(sink.calls, 0);
    } finally {
      await sink.h.adapter.start(sink.record);
    }
  });
});

describe('slack HTTP events with automatic redelivery', () => {
  const deliverySinkRefusedTitle =
    "a delivery the sink refused is redelivered by the emulator's retry schedule and then delivered once";
  test(deliverySinkRefusedTitle, async () => {
    const h = await slackHarness('http', { emulator: { httpRetryDelaysMs: [10, 10] } });
    const got: InboundMessage[] = [];
    let failures = 1;
    await h.adapter.start(async (m) => {
      if (failures-- > 0) throw new Error('store unavailable');
      got.push(m);
    });
    try {
      const post = await h.emu.userSays({ channel: DM_CHANNEL, text: 'eventually' });
      const rec = post.http[0]!;
      await until(() => rec.delivered, 'the automatic redelivery');
      assert.deepEqual(
        rec.attempts.map((a) => [a.retryNum, a.status]),
        [
          [0, 500],
          [1, 200],
        ],
      );
      assert.deepEqual(
        got.map((m) => m.text),
        ['eventually'],
      );
    } finally {
      await h.adapter.stop();
      await h.close();
    }
  });
});
