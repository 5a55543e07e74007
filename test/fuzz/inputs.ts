// Input generators shared by the fuzz targets: recorded fixtures with random mutations (so the
// inputs get past the first type checks and reach deep code), arbitrary JSON, Markdown-like text
// built from the characters renderers care about, and long repetitions (for super-linear time).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { root } from '../helpers.ts';

/** A JSON value, as a payload parses to. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The recorded JSON payloads of `test/fixtures/<folder>`, parsed. */
export function fixtures(folder: string, pick: (doc: Json) => Json = (d) => d): Json[] {
  const dir = join(root, 'test', 'fixtures', folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => pick(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Json));
}

/** The recorded text files of `test/fixtures/<folder>` ending in `ext`. */
export function textFixtures(folder: string, ext: string): string[] {
  const dir = join(root, 'test', 'fixtures', folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'latin1'));
}

/** Values that sit on the edges parsers get wrong: huge and negative numbers, odd strings, wrong types. */
export const edgeValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    0,
    -1,
    1.5,
    -0,
    1e308,
    -1e308,
    2 ** 53,
    2 ** 31,
    Number.MAX_SAFE_INTEGER,
    '',
    ' ',
    '0',
    '-1',
    '__proto__',
    'constructor',
    '\u0000',
    '\ud800',
    '😀',
    '\u202e',
    'a:b',
    '../..',
    null,
    true,
    false,
    [],
    {},
  ),
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.string({ maxLength: 12 }),
);

/** Every path to a value inside `doc` (objects and arrays), the root included. */
function paths(doc: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(doc)) doc.forEach((v, i) => paths(v, [...at, i], out));
  else if (doc !== null && typeof doc === 'object') for (const [k, v] of Object.entries(doc)) paths(v, [...at, k], out);
  return out;
}

type Mutation = { op: 'set' | 'delete' | 'add' | 'copy'; where: number; from: number; key: string; value: Json };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('set', 'set', 'delete', 'add', 'copy'),
  where: fc.nat(),
  from: fc.nat(),
  key: fc.oneof(fc.constantFrom('text', 'id', 'type', 'user', 'entities', 'from', 'chat'), fc.string({ maxLength: 6 })),
  value: fc.oneof(
    { weight: 3, arbitrary: edgeValue },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
  ),
});

function get(doc: Json, path: (string | number)[]): Json {
  let v: Json = doc;
  for (const p of path) v = (v as Record<string | number, Json>)[p]!;
  return v;
}

/** `doc` (a deep copy) with the mutations applied: values replaced, keys deleted or added, subtrees copied. */
function mutate(doc: Json, mutations: Mutation[]): Json {
  let out = structuredClone(doc);
  for (const m of mutations) {
    const all = paths(out);
    const path = all[m.where % all.length]!;
    if (path.length === 0) {
      if (m.op === 'set') out = structuredClone(m.value);
      continue;
    }
    const parent = get(out, path.slice(0, -1)) as Record<string | number, Json>;
    const last = path.at(-1)!;
    // Values are copied in: fast-check hands out the same objects again (constants, shrinking), and a
    // later mutation editing one in place would grow it from run to run.
    const value = structuredClone(m.value);
    if (m.op === 'set') parent[last] = value;
    else if (m.op === 'copy') parent[last] = structuredClone(get(out, all[m.from % all.length]!));
    else if (m.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else {
      const target = get(out, path);
      if (target !== null && typeof target === 'object' && !Array.isArray(target)) target[m.key] = value;
      else if (Array.isArray(target)) target.push(value);
    }
  }
  return out;
}

/** A recorded payload with up to `max` random mutations (none, sometimes: the recorded shape itself). */
export function mutated(docs: Json[], max = 4): fc.Arbitrary<Json> {
  return fc.tuple(fc.constantFrom(...docs), fc.array(mutation, { maxLength: max })).map(([doc, ms]) => mutate(doc, ms));
}

/**
 * Mostly mutated fixtures, some arbitrary JSON: what a platform (or anyone posting to a webhook) sends. Always
 * JSON: every platform payload arrives as JSON text.
 */
export function payload(docs: Json[]): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 8, arbitrary: mutated(docs) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json> },
  );
}

/** Pieces of Markdown as models write it, and the characters renderers escape or count. */
const MARKDOWN_PIECES = [
  '*',
  '**',
  '***',
  '_',
  '__',
  '~',
  '~~',
  '`',
  '``',
  '```',
  '```py',
  '~~~',
  '\n',
  '\n\n',
  '\r\n',
  '\r',
  ' ',
  '  ',
  '\t',
  '|',
  ' | ',
  '|---|',
  '| a | b |',
  '|:--|--:|',
  ':-:',
  '---',
  '***',
  '===',
  '#',
  '# ',
  '#### ',
  '> ',
  '>>> ',
  '- ',
  '* ',
  '1. ',
  '- [ ] ',
  '[',
  ']',
  '(',
  ')',
  '](',
  '[a](https://x.io)',
  '![i](https://x.io/i.png)',
  '<https://x.io>',
  '<',
  '>',
  '&',
  '&amp;',
  '&lt;',
  '"',
  '\\',
  '\\|',
  '||',
  '-#',
  '<br>',
  '<@123>',
  '<@!123>',
  '<@&456>',
  '<#C1|general>',
  '<!here>',
  '\u0000',
  '\u0001',
  '\u00000\u0000',
  'word',
  'snake_case',
  'é',
  '😀',
  '\ud83d',
  '\ude00',
  '\u202e',
  '\u200b',
];

/** Markdown-like text: pieces that mean something to a renderer, mixed with arbitrary characters. */
export const markdownText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...MARKDOWN_PIECES) },
      { weight: 1, arbitrary: fc.string({ maxLength: 8, unit: 'binary' }) },
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''));

/** A short piece repeated up to `maxLength` characters: quadratic (or worse) parsing shows as a hang. */
export function repeated(piece: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(piece, fc.integer({ min: 1, max: maxLength }))
    .map(([p, n]) => (p === '' ? '' : p.repeat(Math.ceil(n / p.length)).slice(0, n)));
}

/** Any text: arbitrary code points (lone surrogates included), Markdown-like text, and long repetitions. */
export function text(pieces: fc.Arbitrary<string> = markdownText, maxRepeat = 20_000): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: pieces },
    { weight: 2, arbitrary: fc.string({ maxLength: 200, unit: 'binary' }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200, unit: 'grapheme' }) },
    { weight: 1, arbitrary: repeated(pieces, maxRepeat) },
  );
}
