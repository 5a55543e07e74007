// `js_exec` through the real sandbox and registry: results and console output come back,
// exceptions are error results, and an endless loop is stopped by the sandbox's limits without
// harming the next call.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { policyFor, TEST_LIMITS, toolHarness, workspace } from './helpers.ts';

const h = toolHarness();
after(() => h.close());

const policy = policyFor(workspace());
const run = (code: string, p = policy) => h.call('js_exec', { code }, p);

describe('js_exec', () => {
  it('returns the value of the last expression and the console output', async () => {
    const r = await run(
      'const xs = [3, 1, 2];\nconsole.log("sorting", xs.length);\nconsole.error("careful");\nxs.sort().map((x) => x ' +
        '* 10)',
    );
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'sorting 3\n[error] careful\n=> [10, 20, 30]');
    assert.deepEqual(r.metadata.result, [10, 20, 30]);
    assert.equal(r.metadata.resultType, 'array');
  });

  it('renders objects, maps and undefined readably', async () => {
    assert.equal((await run('({ a: 1, b: [true, null], c: "s" })')).content, '=> { a: 1, b: [true, null], c: "s" }');
    assert.equal((await run('new Map([["k", 1]])')).content, '=> Map(1) {"k" => 1}');
    assert.equal((await run('let x = 1')).content, '=> undefined');
  });

  it('awaits promises when the code uses await and return', async () => {
    const r = await run('const v = await new Promise((resolve) => setTimeout(() => resolve(41), 5));\nreturn v + 1;');
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, '=> 42');
  });

  it('reports a thrown exception with its message and where in the snippet', async () => {
    const r = await run('console.log("before");\nfunction f() { throw new RangeError("out of range"); }\nf();');
    assert.equal(r.isError, true);
    assert.match(r.content, /^before\nUncaught RangeError: out of range\n {4}at f \(<code>:2:\d+\)/);
    assert.doesNotMatch(r.content, /core\.js|runTool/, "the tool's own frames are hidden");
  });

  it('reports a syntax error', async () => {
    const r = await run('let = ;');
    assert.equal(r.isError, true);
    assert.match(r.content, /SyntaxError/);
  });

  it('has no file system, process or require', async () => {
    const r = await run('[typeof require, typeof process, typeof Deno, typeof fetch]');
    assert.equal(r.content, '=> ["undefined", "undefined", "undefined", "undefined"]');
  });

  it('cannot see or change workspace files, even through the WASI interfaces the engine carries', async () => {
    const ws = workspace();
    writeFileSync(join(ws, 'secret.txt'), 'S3CRET');
    const p = policyFor(ws);
    const r = await run(
      [
        "const { getDirectories } = await import('wasi:filesystem/preopens@0.2.12');",
        'const dirs = getDirectories();',
        "for (const [d] of dirs) d.openAt({}, 'dropped.txt', { create: true }, { write: true });",
        'return dirs.map((d) => d[1]);',
      ].join('\n'),
      p,
    );
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, '=> []');
    assert.deepEqual(readdirSync(ws), ['secret.txt']);
  });

  it('an endless loop hits the sandbox limit, and the next call works', async () => {
    const tight = policyFor(workspace(), { limits: { ...TEST_LIMITS, timeoutMs: 20_000, fuel: 2_000_000_000 } });
    const r = await run('let i = 0; while (true) { i++; }', tight);
    assert.equal(r.isError, true);
    assert.ok(
      r.metadata.trap === 'fuel' || r.metadata.trap === 'timeout',
      `stopped by a limit: ${JSON.stringify(r.metadata)}`,
    );
    assert.match(r.content, /the tool was stopped: (fuel|timeout) limit/);
    const next = await run('6 * 7', tight);
    assert.equal(next.isError, false, next.content);
    assert.equal(next.content, '=> 42');
  });

  it('runs out of memory inside the sandbox, not the host', async () => {
    const small = policyFor(workspace(), { limits: { ...TEST_LIMITS, maxMemoryBytes: 64 * 1024 * 1024 } });
    const r = await run('const a = []; for (;;) a.push(new Array(1e6).fill(1));', small);
    assert.equal(r.isError, true);
    assert.match(r.content, /memory|out of memory|stopped/i);
    const next = await run('1 + 1', small);
    assert.equal(next.content, '=> 2');
  });
});
