// `boxbot start` settings from flags and the environment: flag > environment > config file >
// default, and a bad value names the flag or variable it came from.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readEnvSettings } from '../../src/config/env.ts';
import { loadConfig } from '../../src/config/load.ts';
import { startSettings } from '../../src/config/overrides.ts';
import { UsageError } from '../../src/core/errors.ts';
import { boxbotArgv, tempDir } from '../helpers.ts';

describe('start settings', () => {
  it('reads LOG_LEVEL, PORT and BOXBOT_CONFIG from the environment (empty is unset)', () => {
    assert.deepEqual(readEnvSettings({ LOG_LEVEL: 'debug', PORT: '9000', BOXBOT_CONFIG: '/etc/boxbot.json' }), {
      logLevel: 'debug',
      port: '9000',
      configFile: '/etc/boxbot.json',
    });
    assert.deepEqual(readEnvSettings({ LOG_LEVEL: '', PORT: '' }), {});
  });

  it('a flag beats the environment, which beats the default', () => {
    assert.deepEqual(startSettings({}, {}), { logLevel: 'info', http: {} });
    assert.deepEqual(startSettings({}, { logLevel: 'debug', port: '9000' }), {
      logLevel: 'debug',
      http: { port: 9000 },
    });
    assert.deepEqual(
      startSettings({ logLevel: 'warn', port: '9100', host: '0.0.0.0' }, { logLevel: 'debug', port: '9000' }),
      { logLevel: 'warn', http: { port: 9100, host: '0.0.0.0' } },
    );
  });

  it('a bad value names where it came from', () => {
    assert.throws(() => startSettings({ port: 'eighty' }, {}), /--port "eighty": expected a port number/);
    assert.throws(() => startSettings({}, { port: '70000' }), /PORT "70000": expected a port number/);
    assert.throws(
      () => startSettings({}, { logLevel: 'loud' }),
      (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.match(e.message, /LOG_LEVEL "loud": expected one of trace, debug, info/);
        return true;
      },
    );
  });

  it('--host and --port win over the config file, which wins over the defaults', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ http: { host: '0.0.0.0', port: 9000 } }));
    assert.deepEqual(loadConfig(undefined, dir).config.http, { host: '0.0.0.0', port: 9000 });
    assert.deepEqual(loadConfig(undefined, dir, { http: { port: 9100 } }).config.http, { host: '0.0.0.0', port: 9100 });
    assert.deepEqual(loadConfig(undefined, tempDir(), { http: { host: '::1' } }).config.http, {
      host: '::1',
      port: 8787,
    });
  });
});

describe('boxbot CLI settings', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = {}, cwd = tempDir()) =>
    spawnSync(process.execPath, boxbotArgv(args), { encoding: 'utf8', cwd, env: { ...process.env, ...env } });

  it('start refuses a bad --log-level or PORT with one line and exit 2', () => {
    const flag = run(['start', '--log-level', 'loud']);
    assert.equal(flag.status, 2, flag.stderr);
    assert.equal(
      flag.stderr.trim(),
      'boxbot: --log-level "loud": expected one of trace, debug, info, warn, error, fatal, silent',
    );
    const env = run(['start'], { PORT: 'http' });
    assert.equal(env.status, 2, env.stderr);
    assert.match(env.stderr, /^boxbot: PORT "http": expected a port number from 0 to 65535\n$/);
  });

  it('BOXBOT_CONFIG names the config file when --config is not given; --config wins', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'env.json'), JSON.stringify({ dataDir: 42 }));
    writeFileSync(join(dir, 'flag.json'), JSON.stringify({ dataDir: true }));
    const viaEnv = run(['skill', 'list'], { BOXBOT_CONFIG: join(dir, 'env.json') });
    assert.equal(viaEnv.status, 2);
    assert.match(viaEnv.stderr, /env\.json:\n {2}dataDir: Expected string, received number/);
    const viaFlag = run(['--config', join(dir, 'flag.json'), 'skill', 'list'], {
      BOXBOT_CONFIG: join(dir, 'env.json'),
    });
    assert.equal(viaFlag.status, 2);
    assert.match(viaFlag.stderr, /flag\.json:\n {2}dataDir: Expected string, received boolean/);
  });
});
