// What a newcomer's first mistakes print: a --config file that is not there, a config file that
// is not JSON, and `start --host 0.0.0.0` without BOXBOT_ADMIN_TOKEN. Each is one line naming what
// was wrong and exit 2, before anything is started or written.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { boxbotArgv, tempDir } from '../helpers.ts';

/** Runs `boxbot args` in `cwd` with a private data folder and no admin token. */
function boxbot(cwd: string, ...args: string[]) {
  const env = { ...process.env, BOXBOT_CONFIG: '', BOXBOT_ADMIN_TOKEN: '', XDG_DATA_HOME: join(cwd, 'xdg') };
  return spawnSync(process.execPath, boxbotArgv(args), { encoding: 'utf8', cwd, env, timeout: 60_000 });
}

describe('first mistakes at the command line', () => {
  it('a --config file that does not exist is named, exit 2', () => {
    const dir = tempDir();
    for (const args of [
      ['--config', 'nope.json', 'doctor', '--offline'],
      ['--config', 'nope.json', 'start'],
    ]) {
      const r = boxbot(dir, ...args);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stderr, `boxbot: config file ${join(dir, 'nope.json')} does not exist (boxbot init writes one)\n`);
    }
  });

  it('bad JSON in the config says the line and column', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'boxbot.config.json'), '{\n  "model": "ollama/llama3.1",\n  "http": { "port": 9000 \n}\n');
    const r = boxbot(dir, 'doctor', '--offline');
    assert.equal(r.status, 2, r.stderr);
    assert.equal(
      r.stderr,
      `boxbot: config ${join(dir, 'boxbot.config.json')} is not valid JSON at line 5, column 1: ` +
        "expected ',' or '}', found the end of the file\n",
    );
  });

  it('start --host 0.0.0.0 without BOXBOT_ADMIN_TOKEN exits 2 before opening anything', () => {
    const dir = tempDir();
    const r = boxbot(dir, 'start', '--host', '0.0.0.0', '--port', '0');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^boxbot: http\.host is 0\.0\.0\.0, which other machines can reach: set BOXBOT_ADMIN_TOKEN/);
    assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
    assert.equal(r.stdout, '', 'no banner');
    assert.equal(existsSync(join(dir, 'xdg')), false, `no data folder made: ${readdirSync(dir)}`);
  });
});
