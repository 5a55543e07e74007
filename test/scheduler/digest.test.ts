// A digest job's history, without a worker: the period it reads (since the last successful run;
// first run: the period the prompt names, else 24 hours), threads shown under the message that
// started them with times in the job's zone, which jobs may read a channel, and how a history
// too long for the model is cut into parts that keep threads whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { digestInputOf, mayReadChannel, periodOf, periodStart, renderHistory } from '../../src/scheduler/digest.ts';
import { chunksOf, digestHistory, tokensOf } from '../../src/scheduler/digest-map.ts';
import type { ChannelLogEntry, JobLogEntry, JobRecord } from '../../src/store/index.ts';

const H = 3600_000;
const at = (iso: string) => new Date(iso).toISOString();
const entry = (id: string, time: string, text: string, extra: Partial<ChannelLogEntry> = {}): ChannelLogEntry => ({
  channel: 'slack:T1:C1',
  messageId: id,
  at: at(time),
  userId: 'U1',
  userName: 'ada',
  text,
  ...extra,
});
const run = (startedAt: string, outcome = 'final'): JobLogEntry => ({
  jobId: 'j',
  startedAt,
  finishedAt: startedAt,
  outcome,
  delivered: '1',
  usage: { inputTokens: 0, outputTokens: 0 },
  costUsd: 0,
});

test('the period: since the last successful run, else the one the prompt names, else 24 hours', () => {
  const now = new Date('2026-11-27T09:00:00Z');
  assert.equal(periodOf('/daily-digest the last week'), 7 * 24 * H);
  assert.equal(periodOf('/daily-digest the past 3 days'), 3 * 24 * H);
  assert.equal(periodOf('summarise {{history}}'), undefined);
  assert.deepEqual(periodStart('/daily-digest the last week', [], now), {
    from: new Date(now.getTime() - 7 * 24 * H),
    named: true,
  });
  assert.deepEqual(periodStart('/daily-digest', [], now), { from: new Date(now.getTime() - 24 * H), named: false });
  const logs = [run('2026-11-25T09:00:00.000Z'), run('2026-11-26T09:00:00.000Z', 'error')];
  assert.deepEqual(periodStart('/daily-digest the last week', logs, now), {
    from: new Date('2026-11-25T09:00:00Z'),
    named: false,
  });
});

test('threads are shown under the message that started them, oldest first, in the job’s time zone', () => {
  const blocks = renderHistory(
    [
      entry('1', '2026-11-27T08:00:00Z', 'deploy at 5', { editedAt: at('2026-11-27T08:05:00Z') }),
      entry('2', '2026-11-27T08:01:00Z', 'lunch?', { userName: 'bob' }),
      entry('3', '2026-11-27T08:02:00Z', 'watching it', { threadId: '1', userName: 'bob', files: ['log.txt'] }),
      entry('4', '2026-11-27T08:03:00Z', 'noted', { threadId: '0', userName: 'boxbot', bot: true }),
    ],
    'Europe/Paris',
  );
  assert.deepEqual(blocks, [
    '[Fri 27 Nov 09:00] ada: deploy at 5 (edited)\n  ↳ [Fri 27 Nov 09:02] bob: watching it [files: log.txt]',
    '[Fri 27 Nov 09:01] bob: lunch?',
    '(a thread started before this period)\n  ↳ [Fri 27 Nov 09:03] boxbot (bot): noted',
  ]);
});

test('a job from chat reads a channel only when its creator may talk there; admin jobs may', () => {
  const config = configSchema.parse({
    channels: { slack: { channels: { C1: { allowFrom: ['U1'], history: { record: true } } } } },
  });
  const job = (createdBy?: string) => ({ target: 'slack:T1:C1', ...(createdBy ? { createdBy } : {}) });
  assert.equal(mayReadChannel(config, job()), true);
  assert.equal(mayReadChannel(config, job('slack:T1:U1')), true);
  assert.equal(mayReadChannel(config, job('slack:T1:U2')), false);
  assert.equal(mayReadChannel(config, job('telegram:U1')), false, 'another platform’s user');
});

test('a refused job gets no history; an unrecorded channel keeps the old transcript', async () => {
  const config = configSchema.parse({
    channels: { slack: { channels: { C1: { allowFrom: ['U1'], history: { record: true } } } } },
  });
  let read = 0;
  const deps = {
    config,
    channelLog: {
      list: async () => {
        read++;
        return [entry('1', '2026-11-27T08:00:00Z', 'hi')];
      },
    },
    logs: async () => [],
  };
  const base = { id: 'j', name: 'd', cron: '0 9 * * *', access: 'read-only', timeoutMs: 1, enabled: true } as const;
  const now = new Date('2026-11-27T09:00:00Z');
  const mk = (target: string, createdBy?: string): JobRecord => ({
    ...base,
    overlap: 'skip',
    prompt: '/daily-digest',
    target,
    ...(createdBy ? { createdBy } : {}),
  });
  const refused = await digestInputOf(deps, mk('slack:T1:C1', 'slack:T1:U2'), now);
  assert.ok(refused && 'refused' in refused);
  assert.equal(read, 0, 'the log is not read for a refused job');
  assert.equal(await digestInputOf(deps, mk('slack:T1:C9'), now), undefined);
  const ok = await digestInputOf(deps, mk('slack:T1:C1', 'slack:T1:U1'), now);
  assert.ok(ok && 'blocks' in ok && ok.messages === 1);
});

test('a long history is cut between blocks into parts within the budget, and summarised', async () => {
  const blocks = Array.from({ length: 100 }, (_, i) => `[t] u: message ${i} ${'x'.repeat(60)}`);
  const chunks = chunksOf(blocks, 500);
  assert.ok(chunks.length > 1);
  assert.ok(chunks.every((c) => tokensOf(c) <= 500));
  assert.deepEqual(chunks.join('\n').split('\n'), blocks, 'every block once, in order');
  const prompts: string[] = [];
  const r = await digestHistory({ blocks, messages: 100, period: 'the last day' }, 500, async (p) => {
    prompts.push(p);
    return { ok: true, text: `summary ${prompts.length}` };
  });
  assert.ok(r.ok);
  assert.equal(r.report.chunks, chunks.length);
  assert.match(r.text, /^Summary of part 1 of \d+:\nsummary 1/);
  const whole = await digestHistory({ blocks: blocks.slice(0, 2), messages: 2, period: 'p' }, 500, async () => {
    throw new Error('no call for a history that fits');
  });
  assert.ok(whole.ok && whole.report.chunks === 0 && whole.text === blocks.slice(0, 2).join('\n'));
});
