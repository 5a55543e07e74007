// boxbot.config.json is JSONC: comments and trailing commas load; text inside strings is never
// taken for a comment; a mistyped key gets "did you mean" with its path; "$schema" is accepted.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stripJsonComments } from '../../src/config/jsonc.ts';
import { ConfigError, loadConfig } from '../../src/config/load.ts';
import { closestKey } from '../../src/config/suggest.ts';
import { tempDir } from '../helpers.ts';

function loadText(text: string) {
  const dir = tempDir();
  writeFileSync(join(dir, 'boxbot.config.json'), text);
  return loadConfig(undefined, dir);
}

describe('config file comments (JSONC)', () => {
  it('loads // and /* */ comments and trailing commas, keeping strings that look like comments', () => {
    const { config } = loadText(`{
      // where conversations and jobs are kept
      "$schema": "./boxbot.schema.json",
      "dataDir": "./state//x", /* not a comment: */ "model": "ollama/a/*b*/c",
      "http": { "host": "127.0.0.1", "port": 9000, },
      "admins": ["telegram:1", "say \\"//hi\\"", ],
      /* a block
         over lines, with "quotes" */
    }`);
    assert.equal(config.dataDir, './state//x');
    assert.equal(config.model, 'ollama/a/*b*/c');
    assert.deepEqual(config.http, { host: '127.0.0.1', port: 9000 });
    assert.deepEqual(config.admins, ['telegram:1', 'say "//hi"']);
  });

  it('keeps line numbers for JSON errors after comments', () => {
    const stripped = stripJsonComments('{\n  // one\n  /* two\n three */ "a": 1,\n}');
    assert.equal(stripped.split('\n').length, 5);
    assert.deepEqual(JSON.parse(stripped), { a: 1 });
    assert.throws(() => loadText('{\n // fine\n "a": \n}'), /is not valid JSON/);
    assert.throws(() => loadText('{ /* never closed "a": 1 }'), /is not valid JSON/);
  });

  it('a comma between values is never taken for a trailing one', () => {
    assert.equal(stripJsonComments('[1, /* c */ 2]'), '[1,         2]');
    assert.equal(stripJsonComments('{"a": ",}"}'), '{"a": ",}"}');
  });
});

describe('unknown keys', () => {
  it('suggest the closest known key, with the path', () => {
    assert.throws(
      () =>
        loadText(
          JSON.stringify({
            http: { prot: 9000 },
            sandbox: { limits: { timeotuMs: 1 } },
            channels: { telegram: { chats: { '-100': { acess: 'full' } } } },
            modle: 'x',
            wholly: 1,
          }),
        ),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.message, /^ {2}http: unknown key\(s\) "prot" \(did you mean "port"\?\)$/m);
        assert.match(e.message, /^ {2}sandbox\.limits: unknown key\(s\) "timeotuMs" \(did you mean "timeoutMs"\?\)$/m);
        assert.match(
          e.message,
          /^ {2}channels\.telegram\.chats\.-100: unknown key\(s\) "acess" \(did you mean "access"\?\)$/m,
        );
        assert.match(e.message, /^ {2}\(top level\): unknown key\(s\) "modle" \(did you mean "model"\?\), "wholly"$/m);
        return true;
      },
    );
  });

  it('closestKey offers nothing when no key is near', () => {
    assert.equal(closestKey('limts', ['limits', 'network']), 'limits');
    assert.equal(closestKey('colour', ['http', 'sandbox']), undefined);
  });
});
