// Fuzz target: a tool's `--help` output, read as the registry reads it (bytes decoded by
// detection, then parsed, `-h` and `--help` merged, a JSON Schema made). A tool is untrusted
// code: its help text either parses or is refused with a HelpError, never anything else.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { decodeText } from '../../../src/agent/tools/decode.ts';
import { HelpError, mergeHelp, type ParsedHelp, parseHelp } from '../../../src/agent/tools/help-parse.ts';
import { inputSchemaOf } from '../../../src/agent/tools/schema.ts';
import { root } from '../../helpers.ts';
import type { FuzzTarget } from '../harness.ts';
import { text } from '../inputs.ts';

const dir = join(root, 'test', 'fixtures', 'help');
/** The recorded help texts (clap, argparse, cobra; UTF-8, GBK and Shift-JIS), as bytes. */
const HELP = readdirSync(dir)
  .filter((f) => f.endsWith('.txt'))
  .sort()
  .map((f) => new Uint8Array(readFileSync(join(dir, f))));

/** Lines that mean something to the help parser. */
const HELP_LINES = [
  'Usage: tool [OPTIONS] --file-path <FILE_PATH> [PATTERN]...',
  'usage: tool [-h] [--n N] {a,b} ...',
  'Options:',
  'Arguments:',
  'Commands:',
  'positional arguments:',
  'Flags:',
  '  -f, --file-path <FILE_PATH>  Path to read',
  '      --offset <OFFSET>        First line [default: 0]',
  '      --mode <MODE>            [possible values: encode, decode]',
  '  [PATTERN]  Text to look for',
  '  <FILES>...  Files',
  '  {a,b}',
  '  -h, --help                   Print help',
  'Keywords: file,read,cat',
  'PermissionLevel: ReadOnly',
  'PermissionLevel: root',
  'Network: https://api.github.com',
  'tool 1.0.0',
  '',
  '          continued description',
  '  --',
  '  -',
  '  --=<>',
];

type Edit = { op: 'delete' | 'dup' | 'insert' | 'swap' | 'cut'; at: number; line: string };

/** A recorded help text with lines deleted, doubled, swapped, inserted or cut short. */
const editedHelp = fc
  .tuple(
    fc.constantFrom(...HELP),
    fc.array(
      fc.record({
        op: fc.constantFrom<Edit['op']>('delete', 'dup', 'insert', 'swap', 'cut'),
        at: fc.nat(),
        line: fc.oneof(fc.constantFrom(...HELP_LINES), fc.string({ maxLength: 30 })),
      }),
      { maxLength: 6 },
    ),
  )
  .map(([bytes, edits]) => {
    const lines = decodeText(bytes).text.split('\n');
    for (const e of edits) {
      const i = e.at % (lines.length + 1);
      if (e.op === 'delete') lines.splice(i, 1);
      else if (e.op === 'dup') lines.splice(i, 0, lines[i] ?? '');
      else if (e.op === 'insert') lines.splice(i, 0, e.line);
      else if (e.op === 'swap') [lines[i], lines[0]] = [lines[0] ?? '', lines[i] ?? ''];
      else lines[i] = (lines[i] ?? '').slice(0, e.line.length);
    }
    return new TextEncoder().encode(lines.join('\n'));
  });

/** A recorded help text's bytes with some flipped (odd encodings, cut multi-byte characters). */
const flippedBytes = fc
  .tuple(fc.constantFrom(...HELP), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }))
  .map(([bytes, flips]) => {
    const out = bytes.slice();
    for (const [at, b] of flips) out[at % out.length] = b;
    return out;
  });

function parse(bytes: Uint8Array): ParsedHelp | undefined {
  try {
    return parseHelp(decodeText(bytes).text);
  } catch (e) {
    if (e instanceof HelpError) return undefined;
    throw e;
  }
}

/** `-h` and `--help` outputs: edited recordings, flipped bytes, any text. */
export const helpParse: FuzzTarget<[Uint8Array, Uint8Array]> = {
  name: 'help parse',
  input: fc.tuple(
    fc.oneof(
      { weight: 4, arbitrary: editedHelp },
      { weight: 2, arbitrary: flippedBytes },
      {
        weight: 1,
        arbitrary: text(
          fc.constantFrom(...HELP_LINES).map((l) => `${l}\n`),
          20_000,
        ).map((s) => Buffer.from(s)),
      },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
    ),
    fc.oneof(fc.constantFrom(...HELP), editedHelp),
  ),
  check([short, long]) {
    const a = parse(short);
    const b = parse(long);
    if (!a && !b) return;
    const merged = mergeHelp(a, b);
    const keys = merged.params.map((p) => p.key);
    assert.equal(new Set(keys).size, keys.length, `duplicate parameter keys ${keys.join(',')}`);
    const schema = inputSchemaOf(merged.params, merged.commands);
    JSON.stringify(schema);
  },
};
