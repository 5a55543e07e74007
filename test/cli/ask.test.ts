// `boxbot ask` and `boxbot chat` as a user runs them (the installed bin), against the LLM
// emulator through the real OpenAI SDK: the answer, the JSON shape, access modes, exit codes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { boxbotArgv, shareCache, tempDir } from '../helpers.ts';

let emu: LlmEmulator;
const work = tempDir('boxbot-ask-');
writeFileSync(join(work, 'notes.txt'), 'the meeting is at noon\n');
// The data dir lies outside the folder tools see: inside it, every tool call would be refused.
writeFileSync(
  join(work, 'boxbot.config.json'),
  JSON.stringify({ dataDir: shareCache(join(tempDir('boxbot-ask-data-'), 'data')), model: 'openai/gpt-4o-mini' }),
);

function boxbot(
  args: string[],
  opts: { stdin?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, boxbotArgv(args), {
      cwd: opts.cwd ?? work,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: work,
        OPENAI_API_KEY: 'sk-test-ask-000000000',
        OPENAI_BASE_URL: emu.openaiBaseURL,
        ...opts.env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(opts.stdin ?? '');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

before(async () => {
  emu = await startLlmEmulator();
});
after(async () => {
  await emu.close();
});

describe('boxbot ask', () => {
  it('prints the answer after a read tool call in the current folder', async () => {
    emu.script([
      llm.answer([llm.toolCalls(llm.call('read', { file_path: 'notes.txt' }))]),
      llm.say('The meeting is at noon.'),
    ]);
    const r = await boxbot(['ask', 'When is the meeting?']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'The meeting is at noon.\n');
    const toolResult = emu.requests.at(-1)!.body.messages.at(-1);
    assert.equal(toolResult.role, 'tool');
    assert.match(toolResult.content, /the meeting is at noon/);
    emu.assertDone();
  });

  it('--format json prints text, outcome, toolCalls, usage and cost', async () => {
    emu.script([
      llm.answer([llm.toolCalls(llm.call('ls', {}))]),
      llm.say('Two files.', { usage: { input: 100, output: 10 } }),
    ]);
    const r = await boxbot(['ask', 'What files are here?', '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      text: string;
      outcome: string;
      toolCalls: { name: string; isError: boolean }[];
      usage: { inputTokens: number };
      costUsd: number | null;
    };
    assert.equal(out.text, 'Two files.');
    assert.equal(out.outcome, 'final');
    assert.deepEqual(
      out.toolCalls.map((c) => [c.name, c.isError]),
      [['ls', false]],
    );
    assert.ok(out.usage.inputTokens >= 100);
    assert.equal(typeof out.costUsd, 'number');
    emu.assertDone();
  });

  it('read-only by default: write is not offered, and a forced write is refused', async () => {
    emu.script([
      llm.answer([llm.toolCalls(llm.call('write', { file_path: 'x.txt', content: 'no' }))]),
      llm.say('I cannot write here.'),
    ]);
    const r = await boxbot(['ask', 'write x.txt']);
    assert.equal(r.code, 0, r.stderr);
    const offered = (emu.requests.at(-2)!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    assert.equal(offered.includes('write'), false);
    assert.ok(offered.includes('read'));
    assert.match(emu.requests.at(-1)!.body.messages.at(-1).content, /refused/);
    assert.equal(existsSync(join(work, 'x.txt')), false);
    emu.assertDone();
  });

  it('--access full lets the model write in --workdir', async () => {
    const dir = tempDir('boxbot-ask-wd-');
    emu.script([
      llm.answer([llm.toolCalls(llm.call('write', { file_path: 'out.md', content: '# hi' }))]),
      llm.say('Written.'),
    ]);
    const r = await boxbot(['ask', 'write out.md', '--access', 'full', '--workdir', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(dir, 'out.md'), 'utf8'), '# hi');
    emu.assertDone();
  });

  it('a provider failure exits 1 with one line naming it; a bad flag exits 2', async () => {
    emu.script([llm.fail(401, { message: 'invalid api key' })]);
    const r = await boxbot(['ask', 'hello']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /401/);
    assert.doesNotMatch(r.stderr, /sk-test-ask/);
    const bad = await boxbot(['ask', 'hello', '--access', 'root']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--access must be one of full, read-only, chat-only/);
    emu.assertDone();
  });

  it('without a config file, keeps its data in the user data dir, not in the folder tools see', async () => {
    const cwd = tempDir('boxbot-ask-noconfig-');
    const home = tempDir('boxbot-ask-home-');
    writeFileSync(join(cwd, 'notes.txt'), 'noon\n');
    emu.script([llm.answer([llm.toolCalls(llm.call('read', { file_path: 'notes.txt' }))]), llm.say('Noon.')]);
    const r = await boxbot(['ask', 'When?', '--model', 'openai/gpt-4o-mini'], { cwd, env: { HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(emu.requests.at(-1)!.body.messages.at(-1).content, /noon/);
    assert.deepEqual(readdirSync(cwd), ['notes.txt'], 'ask wrote into the folder it exposes to tools');
    // The bundled tools come compiled from the package's shared cache; their snapshots are the data dir's.
    assert.ok(
      existsSync(join(home, '.local', 'share', 'boxbot', 'cache', 'tools')),
      'the tool cache is in ~/.local/share/boxbot',
    );
    assert.equal(statSync(join(home, '.local', 'share', 'boxbot')).mode & 0o777, 0o700, 'the data dir is private');
    const xdg = tempDir('boxbot-ask-xdg-');
    emu.script([llm.answer([llm.toolCalls(llm.call('read', { file_path: 'notes.txt' }))]), llm.say('Noon.')]);
    const x = await boxbot(['ask', 'When?', '--model', 'openai/gpt-4o-mini'], {
      cwd,
      env: { HOME: home, XDG_DATA_HOME: xdg },
    });
    assert.equal(x.code, 0, x.stderr);
    assert.ok(existsSync(join(xdg, 'boxbot', 'cache', 'tools')), 'XDG_DATA_HOME is honoured');
    assert.deepEqual(readdirSync(cwd), ['notes.txt']);
    emu.assertDone();
  });

  it('refuses to give a tool a folder holding the data dir: the glue cache cannot be rewritten', async () => {
    // The reported attack: data dir inside the work dir, a writing tool prepends code to the
    // cached glue that workers import. The grant is refused before the tool runs.
    const cwd = tempDir('boxbot-ask-attack-');
    writeFileSync(join(cwd, 'boxbot.config.json'), JSON.stringify({ dataDir: './data', model: 'openai/gpt-4o-mini' }));
    emu.script([
      llm.answer([
        llm.toolCalls(llm.call('write', { file_path: 'data/cache/sandbox/pwn.mjs', content: 'process.exit(7)' })),
      ]),
      llm.say('Could not.'),
    ]);
    const r = await boxbot(['ask', 'write it', '--access', 'full'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    const result = emu.requests.at(-1)!.body.messages.at(-1).content as string;
    assert.match(result, /could not run/);
    assert.ok(result.includes(join(realpathSync(cwd), 'data')), result);
    assert.equal(existsSync(join(cwd, 'data', 'cache', 'sandbox', 'pwn.mjs')), false);
    assert.match(
      r.stderr,
      /tools will be refused .*set "dataDir" to a folder outside it/,
      'the user is told once, up front',
    );
    emu.assertDone();
  });

  it('a provider error that echoes the key prints neither on stderr nor on stdout', async () => {
    const key = 'corp-plain-key-4b1d9e77';
    for (const format of ['text', 'json']) {
      emu.script([llm.fail(401, { message: `key ${key} is not valid for this project` })]);
      const r = await boxbot(['ask', 'hello', '--format', format], { env: { OPENAI_API_KEY: key } });
      assert.equal(r.code, 1);
      assert.match(r.stderr + r.stdout, /\[redacted\] is not valid/);
      assert.equal(r.stderr.includes(key), false, r.stderr);
      assert.equal(r.stdout.includes(key), false, r.stdout);
    }
    emu.assertDone();
  });

  it('fifteen tool calls in one run print no MaxListenersExceededWarning', async () => {
    emu.script([
      ...Array.from({ length: 15 }, () => llm.answer([llm.toolCalls(llm.call('ls', {}))])),
      llm.say('Listed fifteen times.'),
    ]);
    const r = await boxbot(['ask', 'List the folder fifteen times, one call at a time.']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Listed fifteen times.\n');
    assert.doesNotMatch(r.stderr, /MaxListenersExceededWarning/);
    assert.equal(r.stderr, '');
    emu.assertDone();
  });

  it('no key: a configuration error, exit 2 with one line naming the variables to set', async () => {
    const r = await boxbot(['ask', 'hello', '--model', 'anthropic/claude-sonnet-4-5'], { env: { OPENAI_API_KEY: '' } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /ANTHROPIC_API_KEY/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.equal(r.stdout, '');
  });

  it('an unknown provider: a configuration error, exit 2 naming it, and no model is called', async () => {
    const before = emu.requests.length;
    const r = await boxbot(['ask', 'hello', '--model', 'nosuch/model-1']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /unknown provider "nosuch"/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.equal(emu.requests.length, before);
  });
});

describe('boxbot chat', () => {
  it('answers /help and /whoami itself, as the chat platforms do: no model request', async () => {
    const before = emu.requests.length;
    const r = await boxbot(['chat'], { stdin: '/help\n/whoami\n/exit\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\/reset: forget this conversation/);
    assert.match(r.stdout, /\/whoami: what I may do for you here/);
    assert.match(r.stdout, /Access: read-only/);
    assert.match(r.stdout, /Tools: .*\bread\b/);
    assert.match(r.stdout, /Model: openai\/gpt-4o-mini\./);
    assert.equal(emu.requests.length, before, 'nothing was sent to the model');
    emu.assertDone();
  });

  it('keeps the conversation across lines and leaves on /exit', async () => {
    emu.script([llm.say('Hi Ada.'), llm.say('You are Ada.')]);
    const r = await boxbot(['chat'], { stdin: 'I am Ada\nwho am I?\n/exit\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Hi Ada\./);
    assert.match(r.stdout, /You are Ada\./);
    const second = emu.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    assert.ok(
      second.some((m) => m.role === 'user' && String(m.content).includes('I am Ada')),
      'history was sent',
    );
    emu.assertDone();
  });
});
