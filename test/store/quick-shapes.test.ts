// The quick shape checks (quick-shapes.ts) against their zod schemas: each accepts the documents
// the store writes on every turn, and accepts nothing its schema refuses, whatever one value of a
// document is replaced by or whichever field is dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConversationShape, isUsageShape } from '../../src/store/quick-shapes.ts';
import { conversationSchema, usageSchema } from '../../src/store/schemas.ts';

const totals = (n: number) => ({
  calls: n,
  inputTokens: 10 * n,
  outputTokens: 3 * n,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0.001 * n,
  unknownCostCalls: 0,
});

const conversation = {
  key: 'telegram:42',
  platform: 'telegram',
  createdAt: '2026-11-28T10:00:00.000Z',
  updatedAt: '2026-11-28T10:05:00.000Z',
  model: 'openai/gpt',
  extra: { kept: true },
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'hi' }], id: 'm1', authors: ['telegram:42'] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'hm' },
        { type: 'tool-call', id: 't1', name: 'read', input: { path: 'a' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool-result', id: 't1', name: 'read', content: 'x', isError: false }] },
    { role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
  ],
};

const usage = {
  subject: 'telegram:42',
  total: totals(3),
  days: { '2026-11-27': totals(1), '2026-11-28': totals(2) },
  models: { '2026-11-28': { 'openai/gpt': totals(2) } },
};

/** Values that replace one value of a document in turn: each type, and the edge cases zod treats apart. */
const REPLACEMENTS: unknown[] = [
  undefined,
  null,
  '',
  'text',
  0,
  -1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  [],
  [1],
  {},
  { type: 'text' },
  new Date(0),
  new Map(),
  // biome-ignore lint/suspicious/noThenProperty: zod takes such an object for a promise, and refuses it.
  { then: () => undefined, catch: () => undefined },
];

/** Every path to a value inside `doc` (objects and arrays walked), the root excluded. */
function paths(doc: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof doc !== 'object' || doc === null) return [];
  const out: (string | number)[][] = [];
  for (const [k, v] of Object.entries(doc)) {
    const p = [...at, Array.isArray(doc) ? Number(k) : k];
    out.push(p, ...paths(v, p));
  }
  return out;
}

/** A deep copy of `doc` with the value at `path` replaced (or, with `drop`, removed). */
function changed(doc: unknown, path: (string | number)[], value: unknown, drop = false): unknown {
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (drop) delete parent[last];
  else parent[last] = value;
  return copy;
}

for (const [name, quick, schema, doc] of [
  ['conversation', isConversationShape, conversationSchema, conversation],
  ['usage', isUsageShape, usageSchema, usage],
] as const) {
  test(`the quick ${name} check accepts the documents written on every turn`, () => {
    assert.equal(schema.safeParse(doc).success, true);
    assert.equal(quick(doc), true);
    assert.equal(quick(JSON.parse(JSON.stringify(doc))), true);
  });

  test(`the quick ${name} check accepts nothing its schema refuses`, () => {
    let refused = 0;
    const variants: unknown[] = [undefined, null, [], 'x', new Date(0), Object.create(null)];
    for (const p of paths(doc)) {
      variants.push(changed(doc, p, undefined, true));
      for (const v of REPLACEMENTS) variants.push(changed(doc, p, v));
    }
    for (const v of variants) {
      const zodSays = schema.safeParse(v).success;
      if (!zodSays) refused++;
      assert.ok(!quick(v) || zodSays, `quick check accepted what the schema refuses: ${String(JSON.stringify(v))}`);
    }
    // The variants include many the schema refuses (else this test would prove nothing).
    assert.ok(refused > 50, `only ${refused} variants refused`);
  });
}
