// Recording a channel end to end on the platform emulators (README, "Recording a channel"): in a
// channel whose policy has `history.record`, plain messages, thread replies, a mention, an edit
// and a deletion land in the channel log as they are, the bot's own answer marked; nothing that
// did not address the bot reaches the model; a channel without the policy is not recorded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChannelLogEntry } from '../../src/store/index.ts';
import { llm } from '../emulators/llm/index.ts';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';
import { waitUntil } from '../helpers.ts';
import { type E2E, startE2E } from './harness.ts';

const DAY = 24 * 3600_000;
const everything = { from: new Date(Date.now() - DAY).toISOString(), to: new Date(Date.now() + DAY).toISOString() };

/** The log as `[name, text, thread?, bot?]` rows, for assertions that read like the channel. */
const rows = (entries: ChannelLogEntry[], threadOf: (ts: string) => string = (t) => t) =>
  entries.map((e) => [e.userName, e.text, ...(e.threadId ? [threadOf(e.threadId)] : []), ...(e.bot ? ['bot'] : [])]);

describe('slack: a recorded channel', () => {
  let emu: SlackEmulator;
  let bb: E2E;
  const C = 'C0OPS';
  before(async () => {
    emu = await startSlackEmulator({ delivery: 'socket' });
    emu.workspace.addUser('U0ADA', 'ada');
    emu.workspace.addUser('U0BOB', 'bob');
    bb = await startE2E(
      {
        channels: {
          slack: { apiUrl: emu.apiUrl, mode: 'socket', channels: { [C]: { history: { record: true, days: 30 } } } },
        },
      },
      { SLACK_BOT_TOKEN: emu.botToken, SLACK_APP_TOKEN: emu.appToken },
    );
  });
  after(async () => {
    await bb?.close();
    await emu?.close();
  });

  it('keeps plain messages, a thread, a mention and the answer, edits and deletions; only the mention is answered', async () => {
    const channel = `slack:${emu.ids.teamId}:${C}`;
    const log = () => bb.app.store.channelLog.list(channel, everything);
    bb.llm.script([llm.say('Deploy is at five.')]);
    const plan = await emu.userSays({ channel: C, user: 'U0ADA', text: 'deploy at 4 today' });
    const reply = await emu.userSays({ channel: C, user: 'U0BOB', text: 'ok, I will watch it', threadTs: plan.ts });
    const oops = await emu.userSays({ channel: C, user: 'U0BOB', text: 'wrong channel, sorry' });
    await emu.userSays({ channel: 'C0ELSEWHERE', user: 'U0BOB', text: 'not recorded here' });
    const ask = await emu.userSays({ channel: C, user: 'U0ADA', text: 'when is the deploy?', mention: true });
    await waitUntil(() => emu.botMessages().some((m) => m.channel === C), 'the answer to the mention', 20_000);
    await emu.userEdits({ channel: C, ts: plan.ts, text: 'deploy at 5 today' });
    await emu.userDeletes({ channel: C, ts: oops.ts });
    const threads = new Map([
      [plan.ts, 'plan'],
      [ask.ts, 'ask'],
    ]);
    const want = [
      ['ada', 'deploy at 5 today'],
      ['bob', 'ok, I will watch it', 'plan'],
      ['ada', `@${emu.ids.botUserId} when is the deploy?`],
      [emu.ids.botName, 'Deploy is at five.', 'ask', 'bot'],
    ];
    await waitUntil(
      async () => JSON.stringify(rows(await log(), (t) => threads.get(t) ?? t)) === JSON.stringify(want),
      'the channel log as the channel reads',
      20_000,
    );
    const entries = await log();
    assert.ok(entries[0]!.editedAt, 'the edit is marked');
    assert.equal(entries[1]!.messageId, reply.ts);
    assert.deepEqual(await bb.app.store.channelLog.channels(), [channel], 'the other channel is not recorded');
    assert.equal(bb.llm.requests.length, 1, 'only the mention reached the model');
  });
});
