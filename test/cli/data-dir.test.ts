// One rule for where data lives, whichever command runs: a config file's dataDir (beside the
// file); without a config file, the per-user folder ($XDG_DATA_HOME/boxbot). The start banner and
// doctor say where it is, and point at a ./data an earlier run left behind.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { dropTool } from '../agent/tools/registry-helpers.ts';
import { boxbotArgv, shareCache, tempDir } from '../helpers.ts';

/** A folder to run in (no config file) and an XDG_DATA_HOME whose boxbot folder shares the test cache. */
function setup() {
  const cwd = tempDir('boxbot-cwd-');
  const xdg = tempDir('boxbot-xdg-');
  const userData = shareCache(join(xdg, 'boxbot'));
  return { cwd, xdg, userData, env: { ...process.env, XDG_DATA_HOME: xdg } };
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, boxbotArgv(args), { cwd, env, encoding: 'utf8' });
}

/** Starts `boxbot start --port 0`; resolves with its banner, then stops it. */
function banner(cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, boxbotArgv(['start', '--port', '0']), { cwd, env });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Press Ctrl+C')) {
        child.once('exit', () => resolve(out));
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (!out.includes('Press Ctrl+C')) reject(new Error(`start exited ${code}: ${err.slice(-800)}`));
    });
  });
}

describe('where data lives', () => {
  it('without a config file, every command uses the per-user folder, never ./data', async () => {
    const { cwd, userData, env } = setup();
    mkdirSync(join(userData, 'extensions', 'tools'), { recursive: true });
    dropTool(join(userData, 'extensions', 'tools'), 'reg-v1', 'mine');
    const skill = join(userData, 'extensions', 'skills', 'my-skill');
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(skill, 'SKILL.md'), '---\nname: my-skill\ndescription: A skill of mine.\n---\nDo it.\n');

    const tools = run(['tool', 'list', '--format', 'json'], cwd, env);
    assert.equal(tools.status, 0, tools.stderr);
    assert.ok(
      (JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.some((t) => t.name === 'mine'),
      'tool list sees the per-user extensions',
    );
    const skills = run(['skill', 'list', '--format', 'json'], cwd, env);
    assert.equal(skills.status, 0, skills.stderr);
    assert.ok(
      (JSON.parse(skills.stdout) as { skills: { name: string }[] }).skills.some((s) => s.name === 'my-skill'),
      'skill list sees the per-user extensions',
    );
    const jobs = run(['job', 'list', '--format', 'json'], cwd, env);
    assert.equal(jobs.status, 0, jobs.stderr);
    const doctor = run(['doctor', '--offline', '--format', 'json'], cwd, env);
    const data = (JSON.parse(doctor.stdout) as { checks: { what: string; detail: string }[] }).checks.find(
      (c) => c.what === 'data',
    );
    assert.ok(data?.detail.startsWith(`${userData} (per-user folder`), JSON.stringify(data));

    const shown = await banner(cwd, env);
    assert.match(shown, new RegExp(`\\n  data +${userData.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(per-user folder`));
    assert.doesNotMatch(shown, /note/);
    assert.equal(existsSync(join(cwd, 'data')), false, 'nothing was written to ./data');
  });

  it('a ./data an earlier run left is pointed at, in the banner and doctor, and not used', async () => {
    const { cwd, env } = setup();
    mkdirSync(join(cwd, 'data', 'workspaces'), { recursive: true });
    const shown = await banner(cwd, env);
    assert.match(shown, /note +.*\/data holds data of an earlier run; to keep using it, put \{"dataDir": "\.\/data"\}/);
    const doctor = run(['doctor', '--offline'], cwd, env);
    assert.match(doctor.stdout, /earlier data +.*\/data is not in use/);
  });

  it('with a config file, its dataDir beside it, for every command', () => {
    const { cwd, env } = setup();
    writeFileSync(join(cwd, 'boxbot.config.json'), '{}');
    const doctor = run(['doctor', '--offline'], cwd, env);
    assert.match(
      doctor.stdout,
      new RegExp(`data +${join(cwd, 'data')} \\(dataDir of ${join(cwd, 'boxbot.config.json')}\\)`),
    );
    assert.ok(existsSync(join(cwd, 'data')));
  });
});
