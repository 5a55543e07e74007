// The per-user build cache (scripts/build-cache.ts) that lets a second clone skip componentize-js:
// a build is reused only for the same inputs and only when its bytes still match their manifest,
// concurrent installs never leave a half entry, and each name keeps its newest entries only.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildCacheDir, cachedBuild, KEEP_PER_NAME } from '../../scripts/build-cache.ts';
import { buildGuest } from '../../scripts/componentize.ts';
import { tempDir } from '../helpers.ts';

const key = (s: string) => createHash('sha256').update(s).digest('hex');

/** A fake builder: counts its calls and returns `bytes`, after `delayMs`. */
function builder(bytes: string, delayMs = 0) {
  const calls = { n: 0 };
  const build = async () => {
    calls.n++;
    await new Promise((r) => setTimeout(r, delayMs));
    return new TextEncoder().encode(bytes);
  };
  return { calls, build };
}

test('the same inputs are copied from the cache; changed inputs are built again', async () => {
  const dir = tempDir('boxbot-build-cache-');
  const first = builder('v1');
  const out1 = join(tempDir('boxbot-clone-'), 'core.wasm');
  assert.equal(await cachedBuild({ dir, name: 'core', key: key('v1'), outPath: out1, build: first.build }), 'built');
  const again = builder('never used');
  const out2 = join(tempDir('boxbot-clone-'), 'core.wasm');
  assert.equal(await cachedBuild({ dir, name: 'core', key: key('v1'), outPath: out2, build: again.build }), 'reused');
  assert.equal(again.calls.n, 0, 'a second clone does not build');
  assert.equal(readFileSync(out2, 'utf8'), 'v1');
  const changed = builder('v2');
  const out3 = join(tempDir('boxbot-clone-'), 'core.wasm');
  assert.equal(await cachedBuild({ dir, name: 'core', key: key('v2'), outPath: out3, build: changed.build }), 'built');
  assert.equal(readFileSync(out3, 'utf8'), 'v2', 'a changed input is never served the old build');
});

test('an entry whose bytes no longer match their sha256 is named, dropped and rebuilt', async () => {
  const dir = tempDir('boxbot-build-cache-');
  await cachedBuild({ dir, name: 'shell', key: key('a'), outPath: join(dir, '..', 'x.wasm'), ...builder('good') });
  const [entry] = readdirSync(dir);
  writeFileSync(join(dir, entry!, 'component.wasm'), 'evil');
  const lines: string[] = [];
  const out = join(tempDir('boxbot-clone-'), 'shell.wasm');
  const b = builder('good');
  const how = await cachedBuild({
    dir,
    name: 'shell',
    key: key('a'),
    outPath: out,
    build: b.build,
    log: (l) => lines.push(l),
  });
  assert.equal(how, 'built');
  assert.equal(readFileSync(out, 'utf8'), 'good', 'the tampered bytes were not used');
  assert.match(lines.join('\n'), /ignoring .*shell-[0-9a-f]{64} \(component\.wasm does not match its sha256\)/);
  // The rebuilt entry replaced the damaged one and is whole again.
  assert.equal(await cachedBuild({ dir, name: 'shell', key: key('a'), outPath: out, ...builder('x') }), 'reused');
  assert.equal(readFileSync(out, 'utf8'), 'good');
});

test('a half entry (bytes without a manifest) is never used', async () => {
  const dir = tempDir('boxbot-build-cache-');
  mkdirSync(join(dir, `read-${key('r')}`));
  writeFileSync(join(dir, `read-${key('r')}`, 'component.wasm'), 'half');
  const out = join(tempDir('boxbot-clone-'), 'read.wasm');
  const lines: string[] = [];
  const b = builder('whole');
  const log = (l: string) => lines.push(l);
  assert.equal(await cachedBuild({ dir, name: 'read', key: key('r'), outPath: out, build: b.build, log }), 'built');
  assert.equal(readFileSync(out, 'utf8'), 'whole');
  assert.match(lines.join('\n'), /manifest is missing/);
});

test('concurrent installs of the same inputs leave one whole entry and no temporary folder', async () => {
  const dir = tempDir('boxbot-build-cache-');
  const outs = Array.from({ length: 6 }, (_, i) => join(tempDir('boxbot-clone-'), `core${i}.wasm`));
  const results = await Promise.all(
    outs.map((outPath, i) => cachedBuild({ dir, name: 'core', key: key('same'), outPath, ...builder('same', 5 * i) })),
  );
  assert.ok(results.includes('built'));
  for (const out of outs) assert.equal(readFileSync(out, 'utf8'), 'same');
  assert.deepEqual(readdirSync(dir), [`core-${key('same')}`]);
  assert.deepEqual(readdirSync(join(dir, `core-${key('same')}`)).sort(), ['component.wasm', 'manifest.json']);
  const b = builder('unused');
  assert.equal(await cachedBuild({ dir, name: 'core', key: key('same'), outPath: outs[0]!, build: b.build }), 'reused');
});

test(`each name keeps its ${KEEP_PER_NAME} most recently used entries; crashed installs' folders go`, async () => {
  const dir = tempDir('boxbot-build-cache-');
  const out = join(tempDir('boxbot-clone-'), 'grep.wasm');
  const stamp = (name: string, at: number) => utimesSync(join(dir, name), at, at);
  for (const [i, v] of ['a', 'b', 'c', 'd', 'e'].entries()) {
    await cachedBuild({ dir, name: 'grep', key: key(v), outPath: out, ...builder(v) });
    stamp(`grep-${key(v)}`, 1_000_000 + i * 1000);
    if (v === 'c') {
      // 'a' is used again after 'c' was built: it counts as recent.
      assert.equal(await cachedBuild({ dir, name: 'grep', key: key('a'), outPath: out, ...builder('x') }), 'reused');
      stamp(`grep-${key('a')}`, 1_000_000 + i * 1000 + 500);
    }
  }
  // A crashed install's temporary folder, two hours old, goes too; a running one's (new) stays.
  mkdirSync(join(dir, '.tmp-1-crashed'));
  utimesSync(join(dir, '.tmp-1-crashed'), Date.now() / 1000 - 7200, Date.now() / 1000 - 7200);
  mkdirSync(join(dir, '.tmp-2-running'));
  await cachedBuild({ dir, name: 'other', key: key('o'), outPath: out, ...builder('o') });
  assert.ok(existsSync(join(dir, '.tmp-2-running')), 'a running install keeps its temporary folder');
  rmSync(join(dir, '.tmp-2-running'), { recursive: true });
  const left = readdirSync(dir).sort();
  assert.deepEqual(left, [...['a', 'd', 'e'].map((v) => `grep-${key(v)}`).sort(), `other-${key('o')}`].sort());
});

test('BOXBOT_BUILD_CACHE=off turns the cache off; a path moves it; XDG_CACHE_HOME is honoured', () => {
  assert.equal(buildCacheDir({ BOXBOT_BUILD_CACHE: 'off' }), undefined);
  assert.equal(buildCacheDir({ BOXBOT_BUILD_CACHE: '/tmp/bc' }), '/tmp/bc');
  assert.equal(buildCacheDir({ XDG_CACHE_HOME: '/tmp/xdg' }), join('/tmp/xdg', 'boxbot', 'build'));
});

test('buildGuest: a second checkout of the same guest copies it from the cache, byte for byte', async () => {
  const cache = tempDir('boxbot-build-cache-');
  const src = join(tempDir('boxbot-guest-'), 'exit-0.wat');
  writeFileSync(src, '(module (memory (export "memory") 1) (func (export "_start")))\n');
  const first = join(tempDir('boxbot-clone-'), 'exit-0.wasm');
  assert.deepEqual(await buildGuest(src, first, undefined, cache), { built: true });
  const second = join(tempDir('boxbot-clone-'), 'exit-0.wasm');
  assert.deepEqual(await buildGuest(src, second, undefined, cache), { built: false, reused: true });
  assert.deepEqual(readFileSync(second), readFileSync(first));
  writeFileSync(src, '(module (memory (export "memory") 2) (func (export "_start")))\n');
  const third = join(tempDir('boxbot-clone-'), 'exit-0.wasm');
  assert.deepEqual(await buildGuest(src, third, undefined, cache), { built: true }, 'a changed source is built');
  assert.notDeepEqual(readFileSync(third), readFileSync(first));
});
