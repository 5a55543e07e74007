// The help parser against help texts written as clap 4, argparse and cobra print them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { decodeText } from '../../../src/agent/tools/decode.ts';
import { HelpError, mergeHelp, type ParsedHelp, parseHelp } from '../../../src/agent/tools/help-parse.ts';
import { inputSchemaOf } from '../../../src/agent/tools/schema.ts';
import { root } from '../../helpers.ts';

const fixture = (name: string) => decodeText(readFileSync(join(root, 'test', 'fixtures', 'help', name))).text;
const param = (h: ParsedHelp, key: string) => {
  const p = h.params.find((x) => x.key === key);
  assert.ok(p, `no parameter ${key} in ${h.params.map((x) => x.key).join(', ')}`);
  return p;
};

describe('clap 4', () => {
  const short = parseHelp(fixture('clap-short.txt'));
  const long = parseHelp(fixture('clap-long.txt'));

  test('reads name, version, about and the declarations', () => {
    assert.equal(short.name, 'webfetch');
    assert.equal(short.version, '0.3.1');
    assert.equal(short.about, 'Fetch a web page and return it as Markdown');
    assert.deepEqual(short.keywords, ['web', 'fetch', 'http']);
    assert.equal(short.permissionLevel, 'ReadOnly');
    assert.deepEqual(short.network, ['https://*.wikipedia.org']);
  });

  test('types value names that are type words', () => {
    assert.equal(param(short, 'offset').type, 'integer');
    assert.equal(param(short, 'url').type, 'string');
    assert.equal(param(short, 'readability').type, 'boolean');
    assert.equal(
      param(short, 'readability').valueName,
      'BOOLEAN',
      'a BOOLEAN value is passed as a value, not a bare flag',
    );
    assert.equal(param(short, 'timeout').type, 'integer');
    assert.equal(param(short, 'verbose').type, 'boolean');
    assert.equal(param(short, 'verbose').valueName, undefined);
  });

  test('keeps defaults, possible values, required options and optional arguments', () => {
    assert.equal(param(short, 'offset').default, '0');
    assert.deepEqual(param(short, 'format').enum, ['markdown', 'text', 'html']);
    assert.equal(param(short, 'format').default, 'markdown');
    assert.equal(param(short, 'url').required, true, '--url is outside brackets in Usage');
    assert.equal(param(short, 'offset').required, false);
    const sel = param(short, 'selector');
    assert.equal(sel.kind, 'positional');
    assert.equal(sel.required, false);
    assert.equal(param(short, 'url').flag, '--url');
    assert.ok(!short.params.some((p) => p.key === 'help' || p.key === 'version'));
  });

  test('long help: multi-line descriptions, the possible-values list and repeated options', () => {
    assert.match(long.longAbout, /follows at most five redirects/);
    assert.match(param(long, 'selector').description, /Only the first matching element/);
    assert.deepEqual(param(long, 'format').enum, ['markdown', 'text', 'html']);
    assert.equal(param(long, 'format').default, 'markdown');
    assert.equal(param(long, 'header').multiple, true);
    assert.deepEqual(param(long, 'readability').default, 'true');
  });

  test('merging -h and --help: long descriptions win, short about is kept', () => {
    const m = mergeHelp(short, long);
    assert.equal(m.about, 'Fetch a web page and return it as Markdown');
    assert.match(m.longAbout, /Scripts and styles are dropped/);
    assert.match(param(m, 'selector').description, /Only the first/);
    assert.equal(param(m, 'header').multiple, true);
    assert.equal(param(m, 'url').required, true);
  });

  test('Arguments: <REQ>, [OPT], <MANY>... and Rust type names', () => {
    const h = parseHelp(fixture('clap-args.txt'));
    assert.deepEqual(
      h.params.filter((p) => p.kind === 'positional').map((p) => [p.key, p.required, p.multiple]),
      [
        ['algorithm', true, false],
        ['files', true, true],
      ],
    );
    assert.deepEqual(param(h, 'algorithm').enum, ['sha256', 'sha512', 'blake3']);
    assert.equal(param(h, 'length').type, 'integer');
    assert.equal(param(h, 'ratio').type, 'number');
    assert.equal(h.permissionLevel, undefined, 'no declaration: the registry reads it as Execute');
  });

  test('Commands: become an enum, without help', () => {
    const h = parseHelp(fixture('clap-commands.txt'));
    assert.deepEqual(
      h.commands.map((c) => c.name),
      ['add', 'list', 'search'],
    );
    const schema = inputSchemaOf(h.params, h.commands);
    assert.deepEqual(schema.properties?.command?.enum, ['add', 'list', 'search']);
    assert.deepEqual(schema.required, ['command']);
  });
});

test('argparse: choices, nargs, defaults, required options and optional positionals', () => {
  const h = parseHelp(fixture('argparse.txt'));
  assert.equal(h.about, 'Summarise CSV files.');
  assert.equal(param(h, 'delimiter').flag, '--delimiter');
  assert.equal(param(h, 'delimiter').default, ',');
  assert.deepEqual(param(h, 'mode').enum, ['sum', 'avg', 'max']);
  assert.equal(param(h, 'columns').multiple, true);
  assert.equal(param(h, 'limit').type, 'integer');
  assert.equal(param(h, 'input').required, true);
  assert.equal(param(h, 'header').type, 'boolean');
  assert.equal(param(h, 'files').required, false);
  assert.equal(param(h, 'files').multiple, true);
});

test('cobra: type words, slices, quoted defaults, Available Commands', () => {
  const h = parseHelp(fixture('cobra.txt'));
  assert.equal(h.about, 'Manage cloud resources from the command line.');
  assert.equal(param(h, 'replicas').type, 'integer');
  assert.equal(param(h, 'replicas').default, '1');
  assert.equal(param(h, 'region').default, 'eu-west-1');
  assert.equal(param(h, 'tags').multiple, true);
  assert.equal(param(h, 'dry_run').type, 'boolean');
  assert.deepEqual(
    h.commands.map((c) => c.name),
    ['deploy', 'logs'],
  );
});

test('GBK and Shift-JIS help texts decode and parse', () => {
  const zh = parseHelp(fixture('clap-gbk.txt'));
  assert.equal(zh.about, '读取文件并统计中文字符的数量');
  assert.equal(param(zh, 'file_path').description, '要读取的文件路径');
  const ja = parseHelp(fixture('clap-sjis.txt'));
  assert.equal(ja.about, 'ファイルを読み込んで文字数を数えます');
  assert.deepEqual(ja.keywords, ['ファイル', 'カウント']);
});

test('output that is not help is refused with a reason', () => {
  assert.throws(
    () => parseHelp(fixture('not-help.txt')),
    (e: unknown) => e instanceof HelpError && /not help.*Usage:.*Hello! This program/.test(e.message),
  );
  assert.throws(() => parseHelp('   \n'), /empty/);
});

test('an unknown PermissionLevel is refused naming the value', () => {
  assert.throws(
    () => parseHelp('t 1.0\nx\n\nPermissionLevel: Root\n\nUsage: t\n'),
    /PermissionLevel: "Root" is not one of None, ReadOnly, Write, Execute/,
  );
});

describe('more real layouts', () => {
  const clap4WrappedTitle =
    'clap 4 wrapped help: continuation lines, fractional defaults, env/alias hints, optional values, short-only flags';
  test(clap4WrappedTitle, () => {
    const h = parseHelp(fixture('clap-wrapped.txt'));
    assert.equal(
      param(h, 'depth').description,
      'How many links deep to follow; pages further away are listed\nbut not fetched',
    );
    assert.equal(param(h, 'depth').default, '3');
    assert.equal(param(h, 'depth').type, 'integer');
    assert.equal(param(h, 'delay').type, 'number', '<NUMBER> with default 0.5 is not an integer');
    assert.equal(param(h, 'user_agent').description, 'User-Agent header', 'the [env: ...] hint is dropped');
    assert.equal(param(h, 'user_agent').default, 'sitemap/0.4');
    assert.deepEqual(param(h, 'color').enum, ['auto', 'always', 'never'], 'possible values wrapped onto the next line');
    assert.equal(param(h, 'include_assets').description, 'Also list images, scripts and stylesheets');
    assert.equal(param(h, 'j').flag, '-j');
    assert.equal(param(h, 'j').type, 'integer');
    assert.equal(param(h, 'list_formats').required, false, 'required only in the second usage form, not in every form');
    assert.deepEqual(h.network, ['https://example.org', 'https://*.example.org']);
    assert.deepEqual(
      h.params.filter((p) => p.kind === 'positional').map((p) => [p.key, p.required, p.multiple]),
      [
        ['url', true, false],
        ['exclude', false, true],
      ],
    );
  });

  test('clap 3 upper-case sections (USAGE:, ARGS:, OPTIONS:)', () => {
    const h = parseHelp(fixture('clap3.txt'));
    assert.equal(h.name, 'grepx');
    assert.equal(param(h, 'pattern').required, true);
    assert.equal(param(h, 'path').required, false, 'the usage line says [PATH]...');
    assert.equal(param(h, 'path').multiple, true);
    assert.equal(param(h, 'after_context').type, 'integer');
    assert.deepEqual(param(h, 'type').enum, ['rust', 'js', 'py']);
  });

  test('clap Subcommands: heading, multi-line command descriptions, aliases dropped', () => {
    const h = parseHelp(fixture('clap-subcommands.txt'));
    assert.deepEqual(h.commands, [
      { name: 'get', about: 'Print the value of a key' },
      { name: 'set', about: 'Store a value under a key; an existing value is replaced' },
      { name: 'delete', about: 'Remove a key' },
    ]);
    assert.equal(h.permissionLevel, 'Write');
  });

  test('argparse subparsers become commands; "optional arguments:" and metavar forms', () => {
    const h = parseHelp(fixture('argparse-subparsers.txt'));
    assert.deepEqual(
      h.commands.map((c) => c.name),
      ['add', 'list', 'rm'],
    );
    assert.equal(h.commands[1]!.about, 'list notes, newest first');
    assert.ok(!h.params.some((p) => p.kind === 'positional'), 'the subcommand choice is not a positional argument');
    assert.equal(param(h, 'lines').flag, '--lines');
    assert.equal(param(h, 'lines').type, 'integer');
    assert.equal(param(h, 'db').default, 'notes.db');
    assert.deepEqual(inputSchemaOf(h.params, h.commands).properties?.level?.enum, [1, 2, 3]);
    assert.match(h.longAbout, /SQLite file/);
  });

  test('cobra subcommand help: positionals from the usage line, slice defaults, Global Flags', () => {
    const h = parseHelp(fixture('cobra-subcommand.txt'));
    assert.deepEqual(
      h.params.filter((p) => p.kind === 'positional').map((p) => [p.key, p.required]),
      [
        ['service', true],
        ['environment', false],
      ],
    );
    assert.equal(param(h, 'ratio').type, 'number');
    assert.equal(param(h, 'config').default, '$HOME/.cloudctl.yaml');
    const schema = inputSchemaOf(h.params, h.commands);
    assert.deepEqual(schema.properties?.ports, {
      description: 'ports to expose',
      type: 'array',
      items: { type: 'integer' },
      default: [80],
    });
    assert.deepEqual(schema.required, ['service']);
  });
});

test('usage-only positionals ignore option groups and command placeholders', () => {
  const h = parseHelp(
    'usage: tidy [-h] [-q] [--width WIDTH] <file> [out]\n\noptions:\n  -h, --help       show this help message and ' +
      'exit\n  -q               quiet\n  --width WIDTH    line width\n',
  );
  assert.deepEqual(
    h.params.map((p) => [p.key, p.kind, p.required]),
    [
      ['q', 'option', false],
      ['width', 'option', false],
      ['file', 'positional', true],
      ['out', 'positional', false],
    ],
  );
  const c = parseHelp('Usage:\n  app [command] [flags]\n\nFlags:\n  -h, --help   help for app\n');
  assert.deepEqual(c.params, []);
});
