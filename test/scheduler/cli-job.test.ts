// `boxbot job ...` as a user runs it (the CLI in a child process, as bin/boxbot.js does): add,
// list, run (here, printed, not delivered), logs and remove over the store; refusals are one
// line naming the flag with exit code 2; and a running scheduler picks up a job the CLI added.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createFileStore } from '../../src/store/index.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { boxbotArgv, root } from '../helpers.ts';
import { dataDir, lastUserText, setup, until } from './helpers.ts';
import { ManualClock } from './manual-clock.ts';

let emu: LlmEmulator;
const dir = dataDir();
const config = join(dir, 'boxbot.config.json');

/** Runs the CLI entry in a child process; async, so the emulator in this process can answer. */
function boxbot(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, boxbotArgv([...args, '--config', config]), {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      OPENAI_API_KEY: 'sk-test-emulator-key',
      OPENAI_BASE_URL: emu.openaiBaseURL,
      TELEGRAM_BOT_TOKEN: '123:test',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

before(async () => {
  emu = await startLlmEmulator();
  writeFileSync(config, JSON.stringify({ dataDir: dir, model: 'openai/gpt-4o-mini' }));
});
after(async () => {
  await emu.close();
});

describe('boxbot job', () => {
  let id = '';

  it('add stores a job and prints its id; list shows it', async () => {
    const r = await boxbot([
      'job',
      'add',
      '--name',
      'Morning digest',
      '--cron',
      '0 9 * * 1-5',
      '--prompt',
      '/daily-digest',
      '--target',
      'telegram:-100123',
      '--timezone',
      'Europe/Berlin',
      '--timeout',
      '2m',
      '--budget',
      '0.25',
      '--overlap',
      'queue',
    ]);
    assert.equal(r.code, 0, r.stderr);
    // The next run is shown on the job's own wall clock: weekdays 09:00 Berlin, not 08:00 UTC.
    id =
      /^added job (morning-digest-[0-9a-f]{6}) \(next run \d{4}-\d\d-\d\d 09:00 Europe\/Berlin\)/.exec(r.stdout)?.[1] ??
      '';
    assert.ok(id, r.stdout);
    const list = await boxbot(['job', 'list', '--format', 'json']);
    assert.equal(list.code, 0, list.stderr);
    const jobs = JSON.parse(list.stdout) as Record<string, unknown>[];
    assert.deepEqual(
      jobs.map((j) => [j.id, j.cron, j.timezone, j.target, j.access, j.timeoutMs, j.budgetUsd, j.overlap, j.enabled]),
      [[id, '0 9 * * 1-5', 'Europe/Berlin', 'telegram:-100123', 'read-only', 120_000, 0.25, 'queue', true]],
    );
    const text = await boxbot(['job', 'list']);
    assert.match(text.stdout, /^ID\s+NAME\s+CRON\s+TARGET\s+ACCESS\s+NEXT RUN\s+LAST RUN\n/);
    assert.match(
      text.stdout,
      new RegExp(
        `^${id}\\s+Morning digest\\s+0 9 \\* \\* 1-5 Europe/Berlin\\s+telegram:-100123\\s+read-only\\s+` +
          `\\d{4}-\\d\\d-\\d\\d 09:00 Europe/Berlin\\s+-$`,
        'm',
      ),
    );
  });

  it('refuses bad input with one line naming the flag, exit code 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--cron', '0 9 * *'], /^boxbot: --cron: "0 9 \* \*" has 4 fields; expected 5/],
      [['--cron', '0 9 * * 8'], /^boxbot: --cron: "0 9 \* \* 8" is not a valid cron expression: /],
      [['--target', 'telegram'], /^boxbot: --target: bad conversation key "telegram"/],
      [
        ['--target', 'discord:1:2'],
        /^boxbot: --target: no discord channel is configured for discord:1:2: set DISCORD_BOT_TOKEN/,
      ],
      [['--access', 'root'], /^boxbot: --access: expected full, read-only or chat-only, got "root"$/],
      [['--timeout', 'soon'], /^boxbot: --timeout: expected milliseconds or a duration/],
    ];
    // Refused before anything is stored, so the commands can run side by side.
    const refused = await Promise.all(
      cases.map(([over]) => {
        const args: Record<string, string> = {
          '--name': 'x',
          '--cron': '0 9 * * *',
          '--prompt': 'hi',
          '--target': 'telegram:1',
        };
        for (let i = 0; i < over.length; i += 2) args[over[i]!] = over[i + 1]!;
        return boxbot(['job', 'add', ...Object.entries(args).flat()]);
      }),
    );
    cases.forEach(([over, expected], i) => {
      const r = refused[i]!;
      assert.equal(r.code, 2, `${over.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr.trim(), expected);
      assert.equal(r.stderr.trim().split('\n').length, 1, 'one line');
    });
    const [missing, noTelegram] = await Promise.all([
      boxbot(['job', 'add', '--name', 'x']),
      boxbot(['job', 'add', '--name', 'x', '--cron', '0 9 * * *', '--prompt', 'hi', '--target', 'telegram:1'], {
        TELEGRAM_BOT_TOKEN: '',
      }),
    ]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /required option '--cron <expr>' not specified/);
    assert.equal(noTelegram.code, 2);
    assert.match(
      noTelegram.stderr,
      /^boxbot: --target: no telegram channel is configured for telegram:1: set TELEGRAM_BOT_TOKEN/,
    );
  });

  it('run executes the job here, prints the answer and says it was not delivered; logs shows the run', async () => {
    const n = emu.requests.length;
    emu.script([llm.say('Digest: nothing happened.')]);
    const r = await boxbot(['job', 'run', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Digest: nothing happened.\n');
    assert.match(r.stderr, /not delivered/);
    assert.match(lastUserText(emu.requests[n]!.body), /Write a digest of the last day/);
    const logs = await boxbot(['job', 'logs', id, '--format', 'json']);
    const entries = JSON.parse(logs.stdout) as { outcome: string; delivered: string | null; trigger: string }[];
    assert.deepEqual(
      entries.map((e) => [e.outcome, e.delivered, e.trigger]),
      [['final', null, 'manual']],
    );
    const text = await boxbot(['job', 'logs', id]);
    assert.match(
      text.stdout,
      /^STARTED\s+FINISHED\s+OUTCOME\s+DELIVERED\s+COST\s+ERROR\n\S+\s+\S+\s+final\s+-\s+\$0\.\d{4}/,
    );
  });

  it('run of a failing job prints the notice and exits 1', async () => {
    emu.script([llm.fail(401, { message: 'bad key' })]);
    const r = await boxbot(['job', 'run', id]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^Scheduled job "Morning digest" failed: /);
  });

  it('remove deletes the job and its logs; unknown ids exit 1', async () => {
    const r = await boxbot(['job', 'remove', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `removed job ${id}\n`);
    const again = await boxbot(['job', 'remove', id]);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `boxbot: no job "${id}" (see boxbot job list)\n`);
    const logs = await boxbot(['job', 'logs', id]);
    assert.equal(logs.code, 1);
    assert.equal(logs.stderr, `boxbot: no job "${id}"\n`);
    assert.equal((await boxbot(['job', 'list'])).stdout, 'no jobs (add one with boxbot job add)\n');
  });

  it('a running scheduler picks up a job the CLI adds, runs it on its cron and delivers it', async () => {
    emu.respond(() => llm.say('picked up'));
    const store = createFileStore(dir);
    // The CLI stamps the job with the wall clock; the test clock starts there and fires the tick.
    const clock = new ManualClock(new Date());
    const ctx = setup(emu, { dir, store, reloadMs: 200, clock });
    try {
      await ctx.scheduler.start();
      const r = await boxbot([
        'job',
        'add',
        '--name',
        'from cli',
        '--cron',
        '*/2 * * * * *',
        '--prompt',
        'say it',
        '--target',
        'telegram:77',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const synced = await ctx.events.wait('synced', (e) => e.jobIds.length === 1);
      assert.deepEqual(synced.caughtUp, []);
      clock.tick(synced.jobIds[0]!);
      const end = await ctx.events.wait('run-end');
      await ctx.scheduler.stop();
      assert.equal(end.report.entry.outcome, 'final');
      assert.deepEqual(
        ctx.posted.map((p) => [p.key, p.text]),
        [['telegram:77', 'picked up']],
      );
      // And removing it from the CLI unschedules it.
      const ctx2 = setup(emu, { dir, store, reloadMs: 200, clock });
      await ctx2.scheduler.start();
      const jobId = (await store.jobs.list())[0]!.id;
      assert.equal((await boxbot(['job', 'remove', jobId])).code, 0);
      await ctx2.events.wait('synced', (e) => !e.jobIds.includes(jobId));
      await ctx2.scheduler.stop();
    } finally {
      emu.respond(undefined);
      await ctx.scheduler.stop();
      await store.close();
    }
  });

  it('edit, disable and enable change a stored job; a running scheduler picks each change up', async () => {
    emu.respond((req) => llm.say(`ran: ${lastUserText(req.body as Parameters<typeof lastUserText>[0])}`));
    const store = createFileStore(dir);
    const clock = new ManualClock(new Date());
    const ctx = setup(emu, { dir, store, reloadMs: 200, clock });
    try {
      await ctx.scheduler.start();
      const add = ['--name', 'editable', '--cron', '0 9 * * *', '--prompt', 'first prompt', '--target', 'telegram:78'];
      const added = await boxbot(['job', 'add', ...add]);
      assert.equal(added.code, 0, added.stderr);
      const jobId = /^added job (\S+) /.exec(added.stdout)![1]!;
      await until(() => clock.isScheduled(jobId), 'the added job is scheduled');

      const off = await boxbot(['job', 'disable', jobId]);
      assert.equal(off.code, 0, off.stderr);
      assert.match(off.stdout, new RegExp(`^disabled job ${jobId}; it stays stored`));
      await until(() => !clock.isScheduled(jobId), 'the disabled job is unscheduled');
      assert.match((await boxbot(['job', 'list'])).stdout, new RegExp(`^${jobId}\\s.*\\sdisabled\\s+-$`, 'm'));

      const on = await boxbot(['job', 'enable', jobId]);
      assert.equal(on.code, 0, on.stderr);
      assert.match(on.stdout, new RegExp(`^enabled job ${jobId} \\(next run \\d{4}-\\d\\d-\\d\\d 09:00 `));
      await until(() => clock.isScheduled(jobId), 'the enabled job is scheduled again');

      const edit = ['--prompt', 'second prompt', '--cron', '@daily', '--timezone', 'Europe/Berlin'];
      const edited = await boxbot(['job', 'edit', jobId, ...edit]);
      assert.equal(edited.code, 0, edited.stderr);
      assert.match(
        edited.stdout,
        new RegExp(`^updated job ${jobId} \\(next run \\d{4}-\\d\\d-\\d\\d 00:00 Europe/Berlin\\)`),
      );
      const stored = await store.jobs.get(jobId);
      assert.deepEqual(
        [stored?.name, stored?.cron, stored?.timezone, stored?.prompt, stored?.target, stored?.enabled],
        ['editable', '@daily', 'Europe/Berlin', 'second prompt', 'telegram:78', true],
      );
      // The gateway reads the change on its next reload; the tick after it runs the new prompt.
      const from = ctx.events.events.length;
      await ctx.events.wait('synced', (e) => e.jobIds.includes(jobId), { from });
      clock.tick(jobId);
      const end = await ctx.events.wait('run-end', (e) => e.jobId === jobId);
      assert.equal(end.report.entry.outcome, 'final');
      assert.deepEqual(ctx.posted.at(-1)?.key, 'telegram:78');
      assert.match(ctx.posted.at(-1)?.text ?? '', /second prompt/);

      // Refused the way add refuses: one line naming the flag, exit 2; unknown ids exit 1.
      const [badCron, nothing, unknown] = await Promise.all([
        boxbot(['job', 'edit', jobId, '--cron', '0 9 * * 8']),
        boxbot(['job', 'edit', jobId]),
        boxbot(['job', 'enable', 'no-such-job']),
      ]);
      assert.equal(badCron.code, 2);
      assert.match(badCron.stderr, /^boxbot: --cron: "0 9 \* \* 8" is not a valid cron expression: /);
      assert.equal(nothing.code, 2);
      assert.match(nothing.stderr, /^boxbot: job edit: nothing to change/);
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stderr, 'boxbot: no job "no-such-job"\n');
      assert.equal((await store.jobs.get(jobId))?.cron, '@daily', 'a refused edit changes nothing');
      assert.equal((await boxbot(['job', 'remove', jobId])).code, 0);
    } finally {
      emu.respond(undefined);
      await ctx.scheduler.stop();
      await store.close();
    }
  });
});
