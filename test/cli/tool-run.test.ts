// `boxbot tool run` as a user runs it: the command in a child process, text and JSON output, exit codes,
// and the grant built from flags (nothing granted that no flag named).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { grantFor, invokeTool, registerFile } from '../../src/agent/tools/index.ts';
import { grantFromFlags, parseDir, type ToolRunFlags } from '../../src/cli/tool-run.ts';
import { createSandbox } from '../../src/sandbox/index.ts';
import { dropTool, openPolicy } from '../agent/tools/registry-helpers.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { boxbotArgv, guest, root, SHARED_CACHE, shareCache, tempDir } from '../helpers.ts';

const dataDir = tempDir('boxbot-data-');
// Without a config file `tool run` keeps its data (and cache) in the user data dir: a temp one
// here, whose cache is shared with the other test files.
const xdg = tempDir('boxbot-xdg-');
shareCache(join(xdg, 'boxbot'));

function boxbot(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, boxbotArgv(args), {
    encoding: 'utf8',
    cwd: dataDir,
    // Without a config file `tool run` keeps its cache in the user data dir: a temp one here.
    env: { ...process.env, BOXBOT_TEST_SECRET: 'sk-should-not-leak', XDG_DATA_HOME: xdg },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const flags = (over: Partial<ToolRunFlags> = {}): ToolRunFlags => ({
  dir: [],
  env: [],
  allowHost: [],
  block: [],
  format: 'text',
  ...over,
});

describe('boxbot tool run', () => {
  it('passes the tool output through and exits with its code', () => {
    const r = boxbot('tool', 'run', guest('exit42'));
    assert.equal(r.code, 42);
    assert.equal(r.stdout, 'bye\n');
  });

  it('gives the tool exactly the --env and -- args named, nothing of the host', () => {
    const r = boxbot('tool', 'run', guest('environ'), '--env', 'A=1', '--', 'x', '--y');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.split('\n').filter(Boolean), ['environ', 'x', '--y', 'A=1']);
  });

  it("a --env grant reaches the bundled bash tool's variables", () => {
    const ws = tempDir('boxbot-bash-env-');
    const bash = join(root, 'tools', 'dist', 'bash.wasm');
    const r = boxbot('tool', 'run', bash, '--dir', ws, '--env', 'FOO=bar', '--', '-c', 'env; echo "FOO is $FOO"');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { error: boolean; content: string };
    assert.equal(out.error, false, out.content);
    const lines = out.content.split('\n');
    assert.ok(lines.includes('FOO=bar'), out.content);
    assert.ok(lines.includes('FOO is bar'), out.content);
  });

  it('prints the SandboxResult as JSON with --format json', () => {
    const r = boxbot('tool', 'run', guest('exit42'), '--format', 'json');
    assert.equal(r.code, 42);
    const out = JSON.parse(r.stdout) as { exitCode: number; stdout: string; stderr: string; durationMs: number };
    assert.equal(out.exitCode, 42);
    assert.equal(out.stdout, 'bye\n');
    assert.equal(typeof out.durationMs, 'number');
  });

  it('reports a trap as "error: <kind>: <message>" and exits 1', () => {
    const r = boxbot('tool', 'run', guest('spin'), '--timeout', '300');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: (timeout|fuel): /m);
  });

  it('answers usage errors with one line and exit code 2', () => {
    const bad = boxbot('tool', 'run', guest('exit42'), '--env', 'NOEQUALS');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--env NOEQUALS: expected NAME=VALUE/);
    const json = boxbot('tool', 'run', guest('exit42'), '--input', '{nope');
    assert.equal(json.code, 2);
    assert.match(json.stderr, /--input is not valid JSON/);
    const unknown = boxbot('tool', 'run', guest('exit42'), '--frobnicate');
    assert.equal(unknown.code, 2);
  });

  it('--dir with an unknown mode or a colon in the guest path: exit 2, one line naming what is accepted', () => {
    const upper = boxbot('tool', 'run', guest('exit42'), '--dir', `${dataDir}:/:RO`);
    assert.equal(upper.code, 2);
    assert.equal(upper.stderr.trim().split('\n').length, 1, upper.stderr);
    assert.match(upper.stderr, /unknown mode "RO"; accepted: ro, rw/);
    const colon = boxbot('tool', 'run', guest('exit42'), '--dir', `${dataDir}:/a:b:ro`);
    assert.equal(colon.code, 2);
    assert.match(colon.stderr, /the guest path may not contain ':'/);
    const modeOnly = boxbot('tool', 'run', guest('exit42'), '--dir', `${dataDir}:RW`);
    assert.equal(modeOnly.code, 2);
    assert.match(modeOnly.stderr, /neither a guest path .* nor a mode \(ro, rw\)/);
  });

  it('--dir . works without a config, and nothing of boxbot lands in the mounted folder', () => {
    const r = boxbot('tool', 'run', guest('exit42'), '--dir', '.');
    assert.equal(r.code, 42, r.stderr);
    assert.equal(existsSync(join(dataDir, 'data')), false);
    assert.ok(existsSync(join(xdg, 'boxbot', 'cache', 'sandbox')));
  });

  it('refuses a --dir holding the data dir or the cache (exit 2, naming the path)', () => {
    const project = tempDir('boxbot-proj-');
    const cfg = join(project, 'boxbot.config.json');
    writeFileSync(cfg, JSON.stringify({ dataDir: './data' }));
    const r = boxbot('--config', cfg, 'tool', 'run', guest('exit42'), '--dir', project);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(r.stderr.includes(`contains ${join(realpathSync(project), 'data')}`), r.stderr);
    const cache = boxbot('--config', cfg, 'tool', 'run', guest('exit42'), '--dir', `${join(project, 'data')}:ro`);
    assert.equal(cache.code, 2, cache.stderr);
  });

  it('refuses a file that is not a tool with exit 1 and the reason', () => {
    const r = boxbot('tool', 'run', join(root, 'package.json'));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /package\.json: not a WebAssembly/);
  });

  it('an unknown command or flag is a usage error: exit 2 with the reason', () => {
    const r = boxbot('tool', 'frobnicate');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command 'frobnicate'/);
    const f = boxbot('tool', 'run', '--no-such-flag', 'x.wasm');
    assert.equal(f.code, 2);
    assert.match(f.stderr, /unknown option '--no-such-flag'/);
  });
});

describe('tool run flags → grant', () => {
  it('grants nothing by default: no mounts, no env, no network, private blocked', () => {
    const g = grantFromFlags(flags(), []);
    assert.deepEqual(g.mounts, []);
    assert.deepEqual(g.env, {});
    assert.deepEqual(g.network, { allow: [], block: ['private'] });
  });

  it('parses --dir HOST[:GUEST][:ro]', () => {
    assert.deepEqual(parseDir('/srv/ws:ro', true), { host: '/srv/ws', guest: '/', readOnly: true });
    assert.deepEqual(parseDir('/srv/data', false), { host: '/srv/data', guest: '/data', readOnly: false });
    assert.deepEqual(parseDir('/srv/x:/in:ro', false), { host: '/srv/x', guest: '/in', readOnly: true });
    assert.deepEqual(parseDir('/srv/x:/in:rw', false), { host: '/srv/x', guest: '/in', readOnly: false });
    assert.deepEqual(parseDir('/srv/x:rw', true), { host: '/srv/x', guest: '/', readOnly: false });
    assert.throws(() => parseDir('/srv/x:/:RO', true), /unknown mode "RO"/);
    assert.throws(() => parseDir('/srv/x:/:r', true), /unknown mode "r"/);
    assert.throws(() => parseDir('/srv/x:/a:b', true), /unknown mode "b"/);
  });

  it('--block none lifts the private block', () => {
    assert.deepEqual(grantFromFlags(flags({ block: ['none'] }), []).network.block, []);
  });

  it('--input builds the argv the agent builds: positional arguments after --, typed flags', async () => {
    const input = {
      file_path: 'notes.txt',
      offset: 3,
      verbose: true,
      mode: null,
      tag: ['a', 'b'],
      pattern: ['x y', '-z'],
    };
    const file = dropTool(tempDir('boxbot-tools-'), 'reg-multi', 'echo'); // prints its argv, one per line
    const cli = boxbot('tool', 'run', file, '--input', JSON.stringify(input));
    assert.equal(cli.code, 0, cli.stderr);
    const sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: join(SHARED_CACHE, 'sandbox'),
      workers: 1,
    });
    try {
      const { spec, blob } = await registerFile(sandbox, file, tempDir('boxbot-toolcache-'));
      const agent = await invokeTool(
        sandbox,
        { spec, blob, source: 'extension' },
        input,
        grantFor(spec.permissionLevel, spec.network, openPolicy()),
      );
      assert.equal(agent.isError, false, agent.content);
      const lines = (t: string) => t.split('\n').filter(Boolean);
      assert.deepEqual(lines(cli.stdout), lines(agent.content));
      assert.deepEqual(
        lines(cli.stdout).slice(-3),
        ['--', 'x y', '-z'],
        'the positional PATTERN goes after --, not as --pattern',
      );
    } finally {
      await sandbox.close();
    }
  });

  it('--input the tool does not accept: exit 2, naming the field', () => {
    const file = dropTool(tempDir('boxbot-tools-'), 'reg-multi', 'echo');
    const r = boxbot('tool', 'run', file, '--input', '{"offset":"ten"}');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--input for echo: offset: /);
  });
});
