// The .env file boxbot setup writes and every command loads: what it parses, what it refuses
// (with the line number), that the environment wins, and that writing keeps the rest of the file
// and never leaves the secrets readable by others.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { dotEnvPath, loadDotEnv, parseDotEnv, writeDotEnv } from '../../src/config/dotenv.ts';
import { ConfigError } from '../../src/config/load.ts';
import { tempDir } from '../helpers.ts';

describe('.env', () => {
  it('parses names, quotes, comments and export, and names the line of one that is not NAME=value', () => {
    const env = parseDotEnv(
      '# keys\nexport A=1\nB = "two words # not a comment"\nC=\'single $x\'\nD=bare # comment\nE="x\\ny"\nF=\n',
    );
    assert.deepEqual(Object.fromEntries(env), {
      A: '1',
      B: 'two words # not a comment',
      C: 'single $x',
      D: 'bare',
      E: 'x\ny',
      F: '',
    });
    assert.throws(
      () => parseDotEnv('A=1\nthis is not a line\n', '/p/.env'),
      (e: unknown) => e instanceof ConfigError && e.message === '/p/.env line 2: expected NAME=value',
    );
    assert.throws(() => parseDotEnv('A="open\n'), /line 1: a double-quoted value with no closing quote/);
    for (const name of ['NODE_OPTIONS', 'LD_PRELOAD', 'PATH'])
      assert.throws(
        () => parseDotEnv(`OK=1\nexport ${name}=x\n`, '.env'),
        new RegExp(`^ConfigError: \\.env line 2: ${name} changes how programs start`),
      );
  });

  it('fills only what the environment leaves unset, and warns about a file others can read', () => {
    const dir = tempDir();
    const file = join(dir, '.env');
    writeFileSync(file, 'TOKEN_A=from-file\nTOKEN_B=from-file\nTOKEN_C=from-file\n', { mode: 0o600 });
    const env: NodeJS.ProcessEnv = { TOKEN_A: 'from-env', TOKEN_C: '' };
    const r = loadDotEnv(file, env);
    assert.deepEqual(r, { file, loaded: ['TOKEN_B', 'TOKEN_C'] });
    assert.deepEqual(env, { TOKEN_A: 'from-env', TOKEN_B: 'from-file', TOKEN_C: 'from-file' });
    chmodSync(file, 0o644);
    assert.equal(loadDotEnv(file, {})?.warning, `${file} can be read by other users (mode 0644): chmod 600 ${file}`);
    assert.equal(loadDotEnv(join(dir, 'none'), {}), undefined, 'no file, nothing to do');
    mkdirSync(join(dir, 'dir.env'));
    assert.throws(() => loadDotEnv(join(dir, 'dir.env'), {}), /is not a regular file/);
    writeFileSync(file, `A=${'x'.repeat(70_000)}\n`);
    assert.throws(() => loadDotEnv(file, {}), /a \.env over 64 KiB is refused/);
  });

  it('writing keeps comments and other names, replaces in place, appends new ones, mode 0600', () => {
    const dir = tempDir();
    const file = join(dir, '.env');
    writeFileSync(file, '# mine\nOTHER=1\nexport KEY=old\n', { mode: 0o644 });
    writeDotEnv(file, { KEY: 'new', TOKEN: 'has space"quote' });
    assert.equal(readFileSync(file, 'utf8'), '# mine\nOTHER=1\nKEY=new\nTOKEN="has space\\"quote"\n');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(parseDotEnv(readFileSync(file, 'utf8')).get('TOKEN'), 'has space"quote', 'reads back the same');
  });

  it('lives beside the config file, else in the working folder', () => {
    assert.equal(dotEnvPath('conf/bot.json', '/srv'), '/srv/conf/.env');
    assert.equal(dotEnvPath(undefined, '/srv'), '/srv/.env');
  });
});
