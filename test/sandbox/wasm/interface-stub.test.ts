// Large core modules go into jco's transpile as stubs of their interface: jco must write the
// very same glue and copy each stub out unchanged, so the original can take its place; a stub
// jco did not copy out unchanged means the original component is transpiled instead.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { transpileBytes } from '@bytecodealliance/jco-transpile';
import { prepare } from '../../../src/sandbox/compile.ts';
import { DEFAULT_LIMITS } from '../../../src/sandbox/index.ts';
import { restoreStubbedModules, STUB_MIN_BYTES, stubLargeCoreModules } from '../../../src/sandbox/wasm/index.ts';
import { Reader } from '../../../src/sandbox/wasm/reader.ts';
import { guest, tempDir } from '../../helpers.ts';

/** `component` with the first function body of its large core module made type-invalid (same size). */
function withInvalidBody(component: Uint8Array): Uint8Array {
  const { stubs } = stubLargeCoreModules(component);
  const module = stubs[0]!.original;
  const at = Buffer.from(component).indexOf(Buffer.from(module));
  const out = Uint8Array.from(component);
  // Find the code section (id 10) and its first body of at least 9 bytes.
  const r = new Reader(out, at + 8);
  for (;;) {
    const id = r.byte();
    const size = r.u32();
    if (id !== 10) {
      r.skip(size);
      continue;
    }
    for (let n = r.u32(); n > 0; n--) {
      const len = r.u32();
      if (len >= 9) {
        // no locals; f32.const 0; i64.const 0; nop...; end: two stray values, never valid here
        out.set([0x00, 0x43, 0, 0, 0, 0, 0x42, 0x00], r.pos);
        out.fill(0x01, r.pos + 8, r.pos + len - 1);
        out[r.pos + len - 1] = 0x0b;
        return out;
      }
      r.skip(len);
    }
    throw new Error('no body to break');
  }
}

const transpile = async (component: Uint8Array) =>
  (await transpileBytes(component, { name: 'guest', instantiation: 'async', emitTypescriptDeclarations: false })).files;

describe('interface stubs for transpiling', () => {
  // A componentize-js tool: its StarlingMonkey core module is the large one.
  const component = new Uint8Array(readFileSync(guest('cat')));

  it('a stub has its original core module interface: the same imports and exports', () => {
    const { component: stubbed, stubs } = stubLargeCoreModules(component);
    assert.equal(stubs.length, 1);
    assert.ok(stubs[0]!.original.length >= STUB_MIN_BYTES);
    assert.ok(stubbed.length < component.length / 10, 'the component to transpile is a fraction of the size');
    const stub = new WebAssembly.Module(stubs[0]!.stub as Uint8Array<ArrayBuffer>);
    const original = new WebAssembly.Module(stubs[0]!.original as Uint8Array<ArrayBuffer>);
    assert.deepEqual(WebAssembly.Module.imports(stub), WebAssembly.Module.imports(original));
    assert.deepEqual(WebAssembly.Module.exports(stub), WebAssembly.Module.exports(original));
  });

  it('jco writes the same glue and, once restored, the same core modules as from the original', async () => {
    const { component: stubbed, stubs } = stubLargeCoreModules(component);
    const restored = restoreStubbedModules(await transpile(stubbed), stubs);
    assert.ok(restored, 'every stub was copied out unchanged');
    const direct = await transpile(component);
    assert.deepEqual(Object.keys(restored).sort(), Object.keys(direct).sort());
    for (const [name, bytes] of Object.entries(direct)) {
      assert.ok(Buffer.from(restored[name]!).equals(Buffer.from(bytes)), `${name} differs`);
    }
  });

  it('a stub missing from the output is reported, so the caller transpiles the original', () => {
    const { stubs } = stubLargeCoreModules(component);
    assert.equal(restoreStubbedModules({ 'guest.core.wasm': new Uint8Array([0, 97, 115, 109]) }, stubs), undefined);
  });

  it('a large core module that does not validate is still refused, though jco saw only its stub', async () => {
    const file = join(tempDir(), 'broken.wasm');
    writeFileSync(file, withInvalidBody(component));
    await assert.rejects(
      prepare(file, { cacheDir: tempDir('boxbot-cache-'), maxMemoryBytes: DEFAULT_LIMITS.maxMemoryBytes }),
      {
        code: 'invalid-tool',
        message: /not valid WebAssembly/,
      },
    );
  });

  it('bytes without a large core module are left as they are', () => {
    const small = new Uint8Array(readFileSync(guest('exit42')));
    const { component: out, stubs } = stubLargeCoreModules(small);
    assert.equal(stubs.length, 0);
    assert.equal(out, small);
  });
});
