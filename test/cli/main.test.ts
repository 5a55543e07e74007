// `boxbot --help` and `--version` as a user runs them: they answer without loading any
// command's module (the chat SDKs, the sandbox, the scheduler), and the version is the
// package's own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { cliMain, root } from '../helpers.ts';

/**
 * Runs the CLI entry in a child process, as bin/boxbot.js does, then prints on a last line the
 * packages the CommonJS loader has loaded (every chat SDK and express are CommonJS).
 */
function boxbot(...args: string[]): { code: number | null; stdout: string; stderr: string; loaded: string[] } {
  const entry =
    `import(${JSON.stringify(pathToFileURL(cliMain()).href)}).then(async (m) => {
    process.exitCode = await m.main(process.argv.slice(1));
    const pkgs = Object.keys(require.cache)` +
    `.map((f) => /node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(f)?.[1]).filter(Boolean);
    process.stdout.write('\\nLOADED ' + JSON.stringify([...new Set(pkgs)]) + '\\n');
  })`;
  const r = spawnSync(process.execPath, ['-e', entry, '--', ...args], { encoding: 'utf8', cwd: root });
  const last = /\nLOADED (.*)\n$/.exec(r.stdout);
  assert.ok(last, `no module list in: ${r.stdout}\n${r.stderr}`);
  return {
    code: r.status,
    stdout: r.stdout.slice(0, last.index),
    stderr: r.stderr,
    loaded: JSON.parse(last[1]!) as string[],
  };
}

const HEAVY = [
  'discord.js',
  '@discordjs/ws',
  '@slack/bolt',
  '@slack/web-api',
  'grammy',
  'openai',
  '@anthropic-ai/sdk',
  'express',
  'bree',
  'pino',
];

describe('boxbot --help and --version', () => {
  it('--help lists the commands without loading any command module', () => {
    const r = boxbot('--help');
    assert.equal(r.code, 0, r.stderr);
    for (const cmd of ['setup', 'start', 'ask', 'chat', 'tool', 'skill', 'job', 'doctor'])
      assert.match(r.stdout, new RegExp(`^\\s+${cmd}\\b`, 'm'));
    assert.deepEqual(
      r.loaded.filter((p) => HEAVY.includes(p)),
      [],
    );
  });

  it('job --help lists the job subcommands without loading the scheduler', () => {
    const r = boxbot('job', '--help');
    assert.equal(r.code, 0, r.stderr);
    for (const cmd of ['add', 'list', 'remove', 'run', 'logs'])
      assert.match(r.stdout, new RegExp(`^\\s+${cmd}\\b`, 'm'));
    assert.deepEqual(
      r.loaded.filter((p) => HEAVY.includes(p)),
      [],
    );
  });

  it('--version prints the version in package.json', () => {
    const r = boxbot('--version');
    assert.equal(r.code, 0, r.stderr);
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    assert.equal(r.stdout.trim(), version);
    assert.deepEqual(
      r.loaded.filter((p) => HEAVY.includes(p)),
      [],
    );
  });
});
