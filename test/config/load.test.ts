// Config: the defaults run with no file; a bad file is refused naming the field and the
// expected value; relative dataDir resolves against the file's folder.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/load.ts';
import { tempDir } from '../helpers.ts';

describe('config', () => {
  it('runs on defaults with no file', () => {
    const dir = tempDir();
    const { config, file, dataDir } = loadConfig(undefined, dir, { env: { HOME: '/home/ada' } });
    assert.equal(file, undefined);
    assert.equal(dataDir, '/home/ada/.local/share/boxbot');
    assert.deepEqual(config.http, { host: '127.0.0.1', port: 8787 });
    assert.deepEqual(config.sandbox.network, { allow: [], block: ['private'] });
  });

  it('without a file, data is in the user data dir (for every command), never in the folder', () => {
    const dir = tempDir();
    assert.equal(loadConfig(undefined, dir, { env: { HOME: '/home/ada' } }).dataDir, '/home/ada/.local/share/boxbot');
    assert.equal(
      loadConfig(undefined, dir, { env: { HOME: '/home/ada', XDG_DATA_HOME: '/xdg' } }).dataDir,
      '/xdg/boxbot',
    );
    // A relative XDG_DATA_HOME is invalid by the spec and ignored.
    assert.equal(
      loadConfig(undefined, dir, { env: { HOME: '/home/ada', XDG_DATA_HOME: 'rel' } }).dataDir,
      '/home/ada/.local/share/boxbot',
    );
    writeFileSync(join(dir, 'boxbot.config.json'), '{}');
    assert.equal(
      loadConfig(undefined, dir, { env: { HOME: '/home/ada' } }).dataDir,
      join(dir, 'data'),
      'a config file decides',
    );
  });

  it('names the field and what was expected', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'boxbot.config.json'),
      JSON.stringify({ http: { port: 'eighty' }, channels: { telegram: { access: 'admin' } } }),
    );
    assert.throws(
      () => loadConfig(undefined, dir),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.message, /http\.port: Expected number, received string/);
        assert.match(
          e.message,
          /channels\.telegram\.access: Invalid enum value\. Expected 'full' \| 'read-only' \| 'chat-only'/,
        );
        return true;
      },
    );
  });

  it('refuses unknown keys (a typo is not silently ignored)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ sandbox: { limts: {} } }));
    assert.throws(() => loadConfig(undefined, dir), /sandbox: unknown key\(s\) "limts"/);
  });

  it('sandbox disk and network limits come from sandbox.limits in MiB, with defaults', async () => {
    const { limitsOf } = await import('../../src/agent/runtime.ts');
    const dir = tempDir();
    const defaults = limitsOf(loadConfig(undefined, dir));
    assert.equal(defaults.maxWriteBytes, 64 * 1024 * 1024);
    assert.equal(defaults.maxDiskBytes, 1024 * 1024 * 1024);
    assert.equal(defaults.maxResponseBytes, 16 * 1024 * 1024);
    assert.equal(defaults.maxEntries, 100_000);
    const limits = { maxWriteMb: 8, maxWorkspaceMb: 100, maxResponseMb: 2, maxWorkspaceEntries: 500_000 };
    writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ sandbox: { limits } }));
    const set = limitsOf(loadConfig(undefined, dir));
    assert.deepEqual(
      [set.maxWriteBytes, set.maxDiskBytes, set.maxResponseBytes, set.maxEntries],
      [8 * 1024 * 1024, 100 * 1024 * 1024, 2 * 1024 * 1024, 500_000],
    );
  });

  it('a sandbox worker heap cap below 64 MB is refused, naming the key', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ sandbox: { workerHeapMb: 16 } }));
    assert.throws(() => loadConfig(undefined, dir), /sandbox\.workerHeapMb/);
    writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ sandbox: { workerHeapMb: 2048 } }));
    assert.equal(loadConfig(undefined, dir).config.sandbox.workerHeapMb, 2048);
  });

  it('reports JSON syntax errors and missing explicit files', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), '{ "dataDir": ');
    assert.throws(
      () => loadConfig('bad.json', dir),
      /bad\.json is not valid JSON at line 1, column 14: expected a value, found the end of the file$/,
    );
    writeFileSync(join(dir, 'bad.json'), '{\n  "dataDir": "./d",\n  "model": "x"\n  "http": {}\n}');
    assert.throws(
      () => loadConfig('bad.json', dir),
      /bad\.json is not valid JSON at line 4, column 3: expected ',' or '\}', found '"'$/,
    );
    assert.throws(
      () => loadConfig('missing.json', dir),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message === `config file ${join(dir, 'missing.json')} does not exist (boxbot init writes one)`,
    );
  });

  it('resolves dataDir against the config file folder', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ dataDir: 'state' }));
    assert.equal(loadConfig(join(dir, 'boxbot.config.json')).dataDir, join(dir, 'state'));
  });
});
