// `boxbot start` stops within `shutdown.timeoutMs` when a part hangs: here the Discord gateway
// stops reading, so the adapter waits for a close that never comes (5 s, then it ends the socket;
// the deadline here is 3 s). The process names the part in one log line and exits 1; the message
// it had accepted is answered, once, at the next start.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { compiledSrc } from '../compiled-src.ts';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { boxbotArgv, root, shareCache, tempDir, waitUntil } from '../helpers.ts';

const USER = '4100000000000000042';

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

let discord: DiscordEmulator;
let model: LlmEmulator;
let dir: string;

before(async () => {
  discord = await startDiscordEmulator();
  model = await startLlmEmulator();
  dir = tempDir('boxbot-shutdown-');
  shareCache(join(dir, 'data'));
  const config = {
    dataDir: './data',
    model: 'openai/gpt-4o-mini',
    shutdown: { timeoutMs: 3000 },
    channels: { discord: { restApi: discord.restApi, allowFrom: [USER] } },
  };
  writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify(config));
});

after(async () => {
  await model?.close();
  await discord?.close();
});

/** `boxbot start` in `dir`, up once its banner is printed. */
async function start(): Promise<Started> {
  const env = {
    PATH: process.env.PATH ?? '',
    XDG_DATA_HOME: join(dir, 'xdg'),
    DISCORD_BOT_TOKEN: discord.token,
    OPENAI_API_KEY: 'sk-test-shutdown-000000',
    OPENAI_BASE_URL: model.openaiBaseURL,
  };
  const child = spawn(process.execPath, boxbotArgv(['start', '--port', '0', '--host', '127.0.0.1']), {
    cwd: dir,
    env,
    stdio: 'pipe',
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitUntil(() => out.includes('Press Ctrl+C') || child.exitCode !== null, 'the start banner', 120_000);
  assert.equal(child.exitCode, null, `boxbot start ended early:\n${out}`);
  await waitUntil(() => discord.gateway.liveSessions() > 0, 'the discord session', 60_000);
  return { child, output: () => out, exited };
}

/** Whether process `pid` catches SIGTERM (its SigCgt mask in /proc; Linux), for a failure's message. */
function sigtermCaught(pid: number | undefined): string {
  try {
    const mask = /^SigCgt:\s*([0-9a-f]+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return mask ? String((BigInt(`0x${mask}`) >> 14n) & 1n ? 'yes' : 'no') : 'unknown';
  } catch {
    return 'unknown';
  }
}

test('a hung adapter stop ends the process at the deadline, naming it; the message is answered once', async () => {
  const channel = discord.dmChannel(USER, 'ada');
  const first = await start();
  try {
    model.script([llm.stall()]); // the run is in flight when the signal comes
    discord.userMessage({ channelId: channel.id, userId: USER, userName: 'ada', content: 'what is on today?' });
    await waitUntil(() => model.requests.length === 1, 'the run to reach the model', 60_000);
    discord.gateway.stopReading();
    first.child.kill('SIGTERM');
    // The ceiling only stops a hang: without a deadline the stop would end when the adapter gives up, then exit 0.
    const code = await Promise.race([first.exited, new Promise<'hung'>((r) => setTimeout(r, 60_000, 'hung'))]);
    assert.equal(code, 1, `exit code; output:\n${first.output()}`);
    const lines = first.output().split('\n');
    const named = lines.filter((l) => l.includes('did not stop within'));
    assert.equal(named.length, 1, first.output());
    assert.match(named[0]!, /shutdown: discord adapter did not stop within 3 s; exiting/);
  } finally {
    first.child.kill('SIGKILL');
    await first.exited;
    discord.gateway.resumeReading();
  }
  assert.deepEqual(
    discord.botMessages().filter((m) => m.channel_id === channel.id),
    [],
    'nothing was answered before the stop',
  );

  model.script([llm.say('Standup at ten, then the release.')]);
  const second = await start();
  try {
    const answers = () =>
      discord.botMessages().filter((m) => m.channel_id === channel.id && m.content.includes('Standup at ten'));
    await waitUntil(() => answers().length > 0, 'the answer after the restart', 60_000);
    const again = model.requests.at(-1)?.body;
    assert.match(JSON.stringify(again), /what is on today\?/, 'the run that was cut short runs again');
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
    assert.equal(answers().length, 1, 'answered once');
    model.assertDone();
  } finally {
    second.child.kill('SIGKILL');
    await second.exited;
  }
});

test('a second SIGTERM while a part hangs ends the process at once (130)', async () => {
  // The deadline far off: the stop would end when the Discord adapter gives up on the close (5 s after it began,
  // a wide margin over seeing `stopping` and signalling again), so the second signal is what ends it, at once.
  const config = JSON.parse(readFileSync(join(dir, 'boxbot.config.json'), 'utf8'));
  writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ ...config, shutdown: { timeoutMs: 300_000 } }));
  const run = await start();
  try {
    discord.gateway.stopReading();
    const caught = sigtermCaught(run.child.pid);
    run.child.kill('SIGTERM');
    // A child that ended meanwhile (it can print no `stopping`) fails here at once, with what it printed.
    const begun = () =>
      run.output().includes('stopping') || run.child.exitCode !== null || run.child.signalCode !== null;
    await waitUntil(begun, 'the stop to begin', 60_000).catch((e: Error) => {
      throw new Error(`${e.message}; the child is still running; it printed:\n${run.output()}`);
    });
    assert.ok(
      run.output().includes('stopping'),
      `ended (code ${run.child.exitCode}, signal ${run.child.signalCode}; SIGTERM caught before the kill: ${caught}) ` +
        `before its stop began:\n${run.output()}`,
    );
    run.child.kill('SIGTERM');
    const code = await Promise.race([run.exited, new Promise<'hung'>((r) => setTimeout(r, 60_000, 'hung'))]);
    assert.equal(code, 130, run.output());
    assert.doesNotMatch(run.output(), /did not stop within/);
  } finally {
    run.child.kill('SIGKILL');
    await run.exited;
    discord.gateway.resumeReading();
  }
});

test('a part parked on a promise nothing settles is still named at the deadline, not a silent exit 13', () => {
  // Nothing else keeps this process alive: without the deadline's own timer Node would end it at once with
  // code 13 (an unsettled top-level await), as `boxbot start` would when every handle had closed but a part's stop.
  // The compiled module, so the child does not register tsx for one import.
  const stopSteps = pathToFileURL(join(compiledSrc(), 'core', 'stop-steps.js')).href;
  const script = `
    import { stopTimeoutLine, stopWithin } from ${JSON.stringify(stopSteps)};
    const outcome = await stopWithin((steps) => steps.run('mcp', () => new Promise(() => {})), 300);
    process.stdout.write(stopTimeoutLine(outcome.pending, 300));
    process.exitCode = 1;`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.stdout, 'shutdown: mcp did not stop within 0.3 s; exiting', r.stderr);
  assert.equal(r.status, 1, r.stderr);
});
