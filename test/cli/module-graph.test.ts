// Commands that only look at tools and skills load neither a model provider's SDK nor a chat
// platform's: `tool list`, `skill list` and `tool validate` import the tool and skill modules,
// not the agent's whole public surface; `job list` loads the scheduler's own files, not its HTTP
// API (express) or the agent; `boxbot start` with only the web channel on loads no chat platform's
// SDK, nor a model's before it calls one. Checked on the command's module graph (every package it
// resolves, ES modules and CommonJS alike).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { boxbotModulesArgv, guest, root, shareCache, tempDir, waitUntil } from '../helpers.ts';

const SDKS = ['openai', '@anthropic-ai/sdk', 'discord.js', 'grammy', '@slack/web-api', '@slack/socket-mode', 'express'];

const dataDir = shareCache(tempDir('boxbot-graph-'));
const config = join(dataDir, 'boxbot.config.json');
writeFileSync(config, JSON.stringify({ dataDir }));

/** The packages `boxbot <args>` resolves, and its exit code. */
function packagesOf(args: string[]): { code: number | null; packages: string[]; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', join(root, 'test', 'cli', 'module-trace.mjs'), ...boxbotModulesArgv([...args, '--config', config])],
    { cwd: root, encoding: 'utf8' },
  );
  const packages = [...r.stderr.matchAll(/^PKG (.+)$/gm)].map((m) => m[1]!);
  return { code: r.status, packages, stderr: r.stderr };
}

describe('what a tool or skill command loads', () => {
  for (const args of [
    ['tool', 'list'],
    ['skill', 'list'],
    ['tool', 'validate', guest('reg-v1')],
    ['job', 'list'],
  ]) {
    it(`boxbot ${args.slice(0, 2).join(' ')} loads no model or chat SDK`, () => {
      const r = packagesOf(args);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.packages.length > 0, 'the trace saw the packages');
      assert.deepEqual(
        r.packages.filter((p) => SDKS.includes(p)),
        [],
      );
    });
  }
});

describe('what ask and doctor load with no MCP server configured and no skill to install', () => {
  // No key: ask fails with a configuration error (exit 2) after making the runtime and its MCP
  // tools; doctor reports the missing key (exit 1) after its MCP lines.
  for (const [args, code] of [
    [['ask', 'hello'], 2],
    [['doctor', '--offline'], 1],
  ] as const) {
    it(`boxbot ${args[0]} loads no MCP SDK, no skill installer (tar, git) and, for doctor, no express`, () => {
      const r = packagesOf([...args]);
      assert.equal(r.code, code, r.stderr);
      assert.ok(r.packages.includes('zod'), 'the trace saw the packages');
      const unneeded = ['tar', 'isomorphic-git', ...(args[0] === 'doctor' ? ['express'] : [])];
      assert.deepEqual(
        r.packages.filter((p) => p.startsWith('@modelcontextprotocol/') || unneeded.includes(p)),
        [],
      );
    });
  }
});

describe('what boxbot start loads with only the web channel on', () => {
  it('answers /healthz without loading discord.js, Bolt, grammY or, before a model call, the OpenAI SDK', async () => {
    // No platform token in the environment: only the web channel is on.
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: dataDir };
    const child = spawn(
      process.execPath,
      [
        '--import',
        join(root, 'test', 'cli', 'module-trace.mjs'),
        ...boxbotModulesArgv(['start', '--config', config, '--port', '0', '--host', '127.0.0.1']),
      ],
      { cwd: dataDir, env },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await waitUntil(() => /health\s+http:\S+/.test(out) || child.exitCode !== null, 'the health URL', 120_000);
      const url = /health\s+(http:\S+)/.exec(out)?.[1];
      assert.ok(url, `boxbot start printed its health URL:\n${out}\n${err}`);
      const health = (await (await fetch(url)).json()) as { ok: boolean };
      assert.equal(health.ok, true);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const packages = [...err.matchAll(/^PKG (.+)$/gm)].map((m) => m[1]!);
    assert.ok(packages.includes('zod'), `the trace saw the packages: ${packages.join(', ')}`);
    const platformSdks = ['discord.js', '@discordjs/', 'grammy', '@grammyjs/', '@slack/'];
    assert.deepEqual(
      packages.filter((p) => platformSdks.some((s) => (s.endsWith('/') ? p.startsWith(s) : p === s))),
      [],
    );
    assert.equal(packages.includes('openai'), false, 'the OpenAI SDK is loaded on the first call of an OpenAI model');
  });
});
