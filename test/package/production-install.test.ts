// The packed tarball installed as a user installs it (`npm install --omit=dev`, offline from npm's
// cache, into an empty folder), then run from there against the LLM emulator: what was cut from the
// install (binaryen, jco-transpile as a package, the AWS SDK, Gemini's SDK) is absent, the install
// stays under its size ceiling, a bundled tool compiles with the copy of jco-transpile in
// dist/vendor and runs, `boxbot start` answers /healthz, and `boxbot doctor` and a model call name
// the package a Bedrock or Gemini model needs. Needs a built checkout (`npm ci` or `npm run build`
// and the bundled tools).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { root, tempDir, waitUntil } from '../helpers.ts';

const base = tempDir('boxbot-prod-install-');
const prefix = join(base, 'install');
const bin = join(prefix, 'node_modules', 'boxbot', 'bin', 'boxbot.cjs');
let emu: LlmEmulator;

/**
 * What the production install takes on disk (allocated blocks in MiB, as `du -sh` counts them). The
 * issue's goal is 150 MB; this is the ceiling as measured (300 MiB on 28 November 2026: the bundled
 * tools' components and compile cache are 143 MB of it), so that what was cut stays cut.
 */
const SIZE_CEILING_MB = 310;

function diskBytes(path: string): number {
  const st = lstatSync(path);
  let total = st.blocks * 512;
  if (st.isDirectory()) for (const name of readdirSync(path)) total += diskBytes(join(path, name));
  return total;
}

function npm(args: string[], cwd: string): string {
  const r = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' },
  });
  assert.equal(r.status, 0, `npm ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function boxbot(args: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const c = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: cwd,
        OPENAI_API_KEY: 'sk-prod-install-000000',
        OPENAI_BASE_URL: emu.openaiBaseURL,
        ...env,
      },
    });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('the packed tarball installed with --omit=dev', () => {
  before(async () => {
    for (const built of ['dist/cli/main.js', 'dist/vendor/jco-transpile/dist/index.js', 'tools/dist/components'])
      assert.ok(existsSync(join(root, built)), `${built} is missing: build first (npm ci, or npm run build)`);
    const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', base], root)) as {
      filename: string;
    }[];
    mkdirSync(prefix);
    writeFileSync(join(prefix, 'package.json'), '{"name":"prod-install-check","private":true}');
    npm(['install', '--omit=dev', '--prefer-offline', join(base, packed!.filename)], prefix);
    emu = await startLlmEmulator();
  });
  after(async () => {
    await emu?.close();
  });

  it('leaves out binaryen, the jco-transpile package and the cloud hosts’ SDKs', () => {
    const modules = join(prefix, 'node_modules');
    for (const name of [
      'binaryen',
      '@bytecodealliance/jco-transpile',
      '@anthropic-ai/bedrock-sdk',
      '@aws-sdk',
      '@google/genai',
      'google-auth-library',
    ])
      assert.equal(existsSync(join(modules, name)), false, `${name} is not installed`);
    assert.ok(existsSync(join(modules, 'boxbot', 'dist', 'vendor', 'jco-transpile', 'dist', 'index.js')));
  });

  it(`takes at most ${SIZE_CEILING_MB} MB on disk, the bundled tools' compile cache included`, () => {
    assert.ok(existsSync(join(prefix, 'node_modules', 'boxbot', 'tools', 'dist', 'cache', 'specs')), 'cache built');
    const mb = diskBytes(join(prefix, 'node_modules')) / 2 ** 20;
    assert.ok(mb <= SIZE_CEILING_MB, `the install takes ${mb.toFixed(0)} MB (ceiling ${SIZE_CEILING_MB} MB)`);
  });

  it('boxbot ask runs a bundled tool compiled there, in an empty folder', async () => {
    const work = join(base, 'work');
    mkdirSync(work);
    writeFileSync(join(work, 'notes.txt'), 'the meeting is at noon\n');
    const config = join(base, 'boxbot.config.json');
    writeFileSync(config, JSON.stringify({ dataDir: join(base, 'data'), model: 'openai/gpt-4o-mini' }));
    emu.script([
      llm.answer([llm.toolCalls(llm.call('read', { file_path: 'notes.txt' }))]),
      llm.say('The meeting is at noon.'),
    ]);
    const r = await boxbot(['ask', 'When is the meeting?', '--config', config, '--workdir', work], work);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'The meeting is at noon.\n');
    assert.match(emu.requests.at(-1)!.body.messages.at(-1).content, /the meeting is at noon/);
    emu.assertDone();
  });

  it('boxbot start answers /healthz with its tools; doctor names the SDK a Bedrock model needs', async () => {
    const empty = join(base, 'empty');
    mkdirSync(empty);
    const config = join(base, 'start.json');
    writeFileSync(config, JSON.stringify({ dataDir: join(base, 'data'), http: { host: '127.0.0.1', port: 0 } }));
    const child = spawn(process.execPath, [bin, 'start', '--config', config], {
      cwd: empty,
      env: { PATH: process.env.PATH ?? '', HOME: empty, OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: emu.openaiBaseURL },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      await waitUntil(() => /health\s+(http:\S+)/.test(out), 'boxbot start prints its health URL', 180_000);
      const url = /health\s+(http:\S+)/.exec(out)![1]!;
      const health = (await (await fetch(url)).json()) as { ok: boolean; tools: number };
      assert.equal(health.ok, true);
      assert.ok(health.tools >= 9, `the bundled tools are registered (${health.tools})`);
    } finally {
      child.kill('SIGTERM');
    }
    const bedrock = join(base, 'bedrock.json');
    writeFileSync(
      bedrock,
      JSON.stringify({
        dataDir: join(base, 'data-bedrock'),
        model: 'bedrock/us.anthropic.claude-sonnet-4-5-v1:0',
        providers: { bedrock: { type: 'bedrock', region: 'us-east-1' } },
      }),
    );
    const d = await boxbot(['doctor', '--config', bedrock], empty, {
      AWS_ACCESS_KEY_ID: 'a',
      AWS_SECRET_ACCESS_KEY: 'b',
    });
    assert.equal(d.code, 1, 'doctor fails on a model it cannot call');
    assert.match(
      d.out,
      /@anthropic-ai\/bedrock-sdk is not installed.*npm install @anthropic-ai\/bedrock-sdk@\^1\.1\.3/,
    );
  });

  it('a Gemini model names the SDK to add, in doctor and when asked', async () => {
    const empty = join(base, 'gemini');
    mkdirSync(empty);
    const config = join(base, 'gemini.json');
    writeFileSync(config, JSON.stringify({ dataDir: join(base, 'data-gemini'), model: 'gemini/gemini-2.5-flash' }));
    const env = { GEMINI_API_KEY: 'gemini-prod-install-key' };
    const wanted = /@google\/genai is not installed.*npm install @google\/genai@\^2\.32\.0/;
    const d = await boxbot(['doctor', '--offline', '--config', config], empty, env);
    assert.equal(d.code, 1, 'doctor fails on a model it cannot call');
    assert.match(d.out, wanted);
    const a = await boxbot(['ask', 'hello', '--config', config, '--workdir', empty], empty, env);
    assert.equal(a.code, 2, `a model that cannot be called is a config error: ${a.out}`);
    assert.match(a.err, wanted);
    assert.doesNotMatch(a.err, /gemini-prod-install-key/, 'the key is not printed');
  });
});
