// `boxbot init` as a user runs it: a commented starter config that then loads, whose "$schema"
// points at the shipped schema; run again, it refuses to overwrite with one line and exit 2.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { boxbotArgv, root, tempDir } from '../helpers.ts';

const boxbot = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, boxbotArgv(args), { encoding: 'utf8', cwd, env: { ...process.env, BOXBOT_CONFIG: '' } });

describe('boxbot init', () => {
  it('writes a commented starter config that loads, with the defaults', () => {
    const dir = tempDir();
    const r = boxbot(dir, 'init');
    assert.equal(r.status, 0, r.stderr);
    const file = join(dir, 'boxbot.config.json');
    assert.match(r.stdout, /^wrote .*boxbot\.config\.json\n/);
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^ {2}\/\/ The web chat, health and admin API/m, 'sections are explained');
    const { config, file: used } = loadConfig(undefined, dir);
    assert.equal(used, file);
    assert.deepEqual(config.http, { host: '127.0.0.1', port: 8787 });
    assert.equal(config.channels.web?.enabled, true);
    const schema = resolve(dirname(file), config.$schema!);
    assert.equal(schema, join(root, 'boxbot.schema.json'), 'editors find the shipped schema');
  });

  it('refuses to overwrite an existing file: one line, exit 2, file unchanged', () => {
    const dir = tempDir();
    const file = join(dir, 'boxbot.config.json');
    writeFileSync(file, '{ "model": "mine" }');
    const r = boxbot(dir, 'init');
    assert.equal(r.status, 2);
    assert.equal(r.stderr, `boxbot: ${file} already exists; not overwriting it (edit it, or remove it first)\n`);
    assert.equal(readFileSync(file, 'utf8'), '{ "model": "mine" }');
  });

  it('writes where --config says', () => {
    const dir = tempDir();
    const r = boxbot(dir, '--config', 'bot.json', 'init');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(dir, 'bot.json')));
    assert.equal(existsSync(join(dir, 'boxbot.config.json')), false);
    assert.equal(loadConfig('bot.json', dir).config.dataDir, './data');
  });
});
