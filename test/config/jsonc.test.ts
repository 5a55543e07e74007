// boxbot.config.json is JSONC: comments and trailing commas load; text inside strings is never
// taken for a comment; a mistyped key gets "did you mean" with its path; "$schema" is accepted.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { locateJsonError, stripJsonComments } from '../../src/config/jsonc.ts';
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
    assert.throws(
      () => loadText('{\n // fine\n "a": \n}'),
      /is not valid JSON at line 4, column 1: expected a value, found '\}'$/,
    );
    assert.throws(
      () => loadText('{ /* never closed "a": 1 }'),
      /is not valid JSON at line 1, column 3: expected a property name in double quotes, found a \/\* comment/,
    );
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

describe('where a config file breaks the JSON grammar', () => {
  it('locateJsonError names the line and column where the grammar breaks', () => {
    const at = (text: string) => {
      const e = locateJsonError(text);
      return e && `${e.line}:${e.column} ${e.problem}`;
    };
    assert.equal(at('{\n  "a": 1,\n  "b" 2\n}'), "3:7 expected ':' after the property name, found '2'");
    assert.equal(at('{ "é": "ü" "x" }'), "1:12 expected ',' or '}', found '\"'");
    assert.equal(at('["a\\q"]'), '1:4 unknown escape in a string');
    assert.equal(at('{"a": "two\nlines"}'), '1:11 a string must end on its line (use \\n for a line break)');
    assert.equal(at('{} {}'), "1:4 unexpected '{' after the end of the document");
    assert.equal(at('[01]'), "1:3 expected ',' or ']', found '1'");
    assert.equal(at('{"a": [1, 2}'), "1:12 expected ',' or ']', found '}'");
    assert.equal(at(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), undefined, 'deep nesting is no stack overflow');
  });

  it('locateJsonError finds an error exactly when JSON.parse throws', () => {
    const parses = (s: string) => {
      try {
        JSON.parse(s);
        return true;
      } catch {
        return false;
      }
    };
    // Valid documents, then the same with one character inserted, removed or replaced.
    const doc = fc.json({ maxDepth: 4 });
    const edited = fc
      .tuple(doc, fc.nat(), fc.constantFrom('', ',', ':', '"', '{', '}', '[', ']', '0', '-', 'e', '\\', ' ', 'x', '\n'))
      .map(([s, n, c]) => {
        const i = s.length ? n % (s.length + 1) : 0;
        return n % 2 ? s.slice(0, i) + c + s.slice(i) : s.slice(0, i) + c + s.slice(i + 1);
      });
    fc.assert(
      fc.property(fc.oneof(doc, edited, fc.string()), (s) => (locateJsonError(s) === undefined) === parses(s)),
      { numRuns: 3000 },
    );
  });
});
