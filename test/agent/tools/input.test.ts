// A model's JSON input: checked against the schema built from the help (errors name the field)
// and mapped to the tool's command line as the design says.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inputToArgv } from '../../../src/agent/tools/argv.ts';
import { parseHelp } from '../../../src/agent/tools/help-parse.ts';
import { checkInput, inputSchemaOf } from '../../../src/agent/tools/schema.ts';

const help = parseHelp(`grepish 1.0.0
Search a file

PermissionLevel: ReadOnly

Usage: grepish [OPTIONS] --file-path <FILE_PATH> <PATTERN> [EXTRA]...

Arguments:
  <PATTERN>     Text to look for
  [EXTRA]...    More patterns

Options:
  -f, --file-path <FILE_PATH>  Path to read
      --offset <NUMBER>        First line [default: 0]
      --mode <MODE>            [possible values: encode, decode]
      --tag <TAG>...           Labels
      --ignore-case            Case-insensitive
      --count                  Only count
  -h, --help                   Print help
`);
const schema = inputSchemaOf(help.params, help.commands);
const argvOf = (input: Record<string, unknown>) => {
  const { value, errors } = checkInput(input, schema);
  assert.deepEqual(errors, []);
  return inputToArgv(value, help.params, false);
};

describe('input → argv', () => {
  test('snake_case keys become --kebab-case flags; true is a bare flag; false and null are omitted', () => {
    assert.deepEqual(argvOf({ file_path: 'a.txt', pattern: 'x', ignore_case: true, count: false, mode: null }), [
      '--file-path',
      'a.txt',
      '--ignore-case',
      '--',
      'x',
    ]);
  });

  test('arrays repeat the flag; numbers are written as numbers', () => {
    assert.deepEqual(argvOf({ file_path: 'a', pattern: 'p', tag: ['x', 'y'], offset: 10 }), [
      '--file-path',
      'a',
      '--offset',
      '10',
      '--tag',
      'x',
      '--tag',
      'y',
      '--',
      'p',
    ]);
  });

  test('positional arguments go by name, in the order the help lists them, after --', () => {
    assert.deepEqual(argvOf({ extra: ['b', 'c'], pattern: '-starts-with-dash', file_path: 'f' }), [
      '--file-path',
      'f',
      '--',
      '-starts-with-dash',
      'b',
      'c',
    ]);
  });

  test('a tool with commands gets the command and its args after the options', () => {
    const h = parseHelp(
      'kv 1.0\nStore\n\nUsage: kv [OPTIONS] <COMMAND>\n\nCommands:\n  get  Get a key\n  set  Set a ' +
        'key\n\nOptions:\n  -s, --store <PATH>  Store file\n',
    );
    assert.deepEqual(inputToArgv({ store: 'kv.json', command: 'set', args: ['k', 'v'] }, h.params, true), [
      '--store',
      'kv.json',
      'set',
      'k',
      'v',
    ]);
  });
});

describe('input validation', () => {
  const errorsOf = (input: unknown) => checkInput(input, schema).errors;

  test('a missing required field is named', () => {
    assert.deepEqual(errorsOf({ pattern: 'x' }), ['file_path: required field is missing']);
  });

  test('a wrong type is named with what was expected and what came', () => {
    assert.deepEqual(errorsOf({ file_path: 'a', pattern: 'x', offset: 'ten' }), [
      'offset: expected an integer, got the string "ten"',
    ]);
    assert.deepEqual(errorsOf({ file_path: 'a', pattern: 'x', ignore_case: 'yes' }), [
      'ignore_case: expected true or false, got the string "yes"',
    ]);
  });

  test('a value outside [possible values] lists the allowed ones', () => {
    assert.deepEqual(errorsOf({ file_path: 'a', pattern: 'x', mode: 'rot13' }), [
      'mode: expected one of encode, decode, got the string "rot13"',
    ]);
  });

  test('an unknown field is named, with the fields there are', () => {
    const [e] = errorsOf({ file_path: 'a', pattern: 'x', path: 'b' });
    assert.match(e!, /^path: unknown field; expected one of .*file_path/);
  });

  test('a non-object input is refused', () => {
    assert.deepEqual(errorsOf(['a']), ['input: expected a JSON object, got an array']);
  });

  test('quoted numbers and booleans are accepted and normalised (models often quote them)', () => {
    const { value, errors } = checkInput({ file_path: 'a', pattern: 'x', offset: '5', count: 'true' }, schema);
    assert.deepEqual(errors, []);
    assert.equal(value.offset, 5);
    assert.equal(value.count, true);
  });
});
