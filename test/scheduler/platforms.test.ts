// A scheduled job posts into Telegram, Discord and Slack: a cron tick (fired by the test clock
// through Bree's tick path) starts the worker, the worker thread runs the agent against the LLM
// emulator over HTTP, and the main thread delivers through a real gateway with the real adapter
// talking to the platform's emulator. The run log names the platform message id the emulator assigned.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { targetOf } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway, type Gateway } from '../../src/gateway/gateway.ts';
import type { AdapterHarness } from '../adapters/contract.ts';
import { discordHarness } from '../adapters/discord-harness.ts';
import { type LlmEmulator, llm } from '../emulators/llm/index.ts';
import { slackHarness } from '../emulators/slack/harness.ts';
import { telegramHarness } from '../emulators/telegram/harness.ts';
import { FakeAgent } from '../gateway/fakes.ts';
import { lastUserText, llmEmulatorForFile, setup } from './helpers.ts';
import { ManualClock } from './manual-clock.ts';

let emu: LlmEmulator;
llmEmulatorForFile((e) => {
  emu = e;
});

const platforms: [string, () => Promise<AdapterHarness>][] = [
  ['telegram', () => telegramHarness({ mode: 'polling' })],
  ['discord', () => discordHarness()],
  ['slack', () => slackHarness('socket')],
];

for (const [platform, harness] of platforms) {
  describe(`a job posting to ${platform}`, () => {
    test('runs on its cron in a worker and its answer appears in the channel, logged with the message id', async () => {
      const h = await harness();
      const answer = `Standup in 5 minutes (${platform})`;
      emu.respond((req) =>
        lastUserText(req.body).includes(`remind ${platform}`)
          ? llm.say(answer)
          : llm.fail(400, { message: 'unexpected request' }),
      );
      let gw: Gateway | undefined;
      const clock = new ManualClock('2030-01-07T09:00:00Z');
      const ctx = setup(emu, {
        clock,
        deliver: (key, text, id) => gw!.post(targetOf(key), text, id),
        isKnownTarget: (key) => (gw?.adapter(key.split(':')[0]!) ? true : `no ${key.split(':')[0]} channel is running`),
      });
      const { scheduler } = ctx;
      try {
        gw = createGateway({
          config: configSchema.parse({}),
          adapters: [h.adapter],
          agent: new FakeAgent(),
          store: ctx.store.delivery,
          outbound: { backoffMs: 5 },
        });
        await gw.start();
        const target = h.groupTarget().conversationKey;
        const job = await scheduler.add({
          name: `standup ${platform}`,
          cron: '*/2 * * * * *',
          prompt: `remind ${platform} about the standup`,
          target,
        });
        await scheduler.start();
        clock.set('2030-01-07T09:00:02Z');
        clock.tick(job.id);
        const end = await ctx.events.wait('run-end', (e) => e.jobId === job.id);
        await scheduler.stop();

        assert.equal(end.report.entry.trigger, 'schedule');
        assert.equal(end.report.entry.outcome, 'final');
        const posted = h.botMessages().find((m) => m.text === answer);
        assert.ok(posted, `the answer is in the ${platform} channel; bot messages: ${JSON.stringify(h.botMessages())}`);
        assert.equal(posted.chatId, h.groupTarget().chatId);
        assert.equal(end.report.entry.delivered, posted.messageId);
        const logs = await ctx.store.jobs.logs(job.id);
        assert.equal(logs[0]?.delivered, posted.messageId);
        assert.equal(logs[0]?.jobId, job.id);
        assert.ok(logs[0]!.usage.inputTokens > 0 && logs[0]!.costUsd > 0, 'usage and cost are logged');

        // A target on a platform without a running channel is refused when the job is added.
        const other = platform === 'slack' ? 'telegram:42' : 'slack:T1:C1';
        await assert.rejects(
          scheduler.add({ name: 'elsewhere', cron: '0 9 * * *', prompt: 'x', target: other }),
          /^JobValidationError: target: no (telegram|slack) channel is running$/,
        );
      } finally {
        await gw?.stop();
        await h.close();
        await ctx.store.close();
        emu.respond(undefined);
      }
    });
  });
}
