// The memory shift of preview1 modules (wasm/memory-shift.ts) and the adapter's side of it
// (wasm/adapter-pointers.ts): what a shifted module computes, where its bytes land, the
// `cabi_realloc` it gives the adapter, and the modules and adapters it must leave alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readPreview1CommandAdapter } from '../../../src/sandbox/preview1-adapter.ts';
import {
  patchPreview1Adapter,
  SHIFT_BYTES,
  shiftMemory,
  translateAdapterPointers,
} from '../../../src/sandbox/wasm/index.ts';

async function wat(src: string): Promise<Uint8Array> {
  const wabt = await (await import('wabt')).default();
  // multi_memory is a wabt feature its type declarations do not list yet.
  const features = { simd: true, bulk_memory: true, multi_memory: true } as { simd: boolean };
  const m = wabt.parseWat('t.wat', src, features);
  try {
    return m.toBinary({}).buffer;
  } finally {
    m.destroy();
  }
}

function shifted(bytes: Uint8Array): Uint8Array {
  const r = shiftMemory(bytes);
  assert.ok(r.shifted, r.shifted ? '' : r.reason);
  return r.bytes;
}

const refusal = (bytes: Uint8Array) => {
  const r = shiftMemory(bytes);
  assert.equal(r.shifted, false);
  return r.shifted ? '' : r.reason;
};

const OPS = `(module
  (memory (export "memory") 1 4)
  (data (i32.const 16) "hello")
  (data $later "later")
  (func (export "size") (result i32) (memory.size))
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
  (func (export "load8") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "load8at20") (param i32) (result i32) (i32.load8_u offset=20 (local.get 0)))
  (func (export "store") (param i32 i32) (i32.store (local.get 0) (local.get 1)))
  (func (export "v128") (param i32) (result i32)
    (i32x4.extract_lane 0 (v128.load offset=4 (local.get 0))))
  (func (export "fill") (param i32 i32 i32) (memory.fill (local.get 0) (local.get 1) (local.get 2)))
  (func (export "copy") (param i32 i32 i32) (memory.copy (local.get 0) (local.get 1) (local.get 2)))
  (func (export "init") (param i32) (memory.init $later (local.get 0) (i32.const 0) (i32.const 5))))`;

describe('memory shift', () => {
  it('keeps what the module computes while its bytes sit SHIFT_BYTES higher', async () => {
    const inst = new WebAssembly.Instance(new WebAssembly.Module(shifted(await wat(OPS)) as Uint8Array<ArrayBuffer>));
    const e = inst.exports as Record<string, any>;
    // Growing detaches the buffer: look at memory afresh each time.
    const physical = () => new Uint8Array((e.memory as WebAssembly.Memory).buffer);
    assert.equal(physical().length, 65536 + SHIFT_BYTES);
    assert.equal(e.size(), 1);
    assert.equal(Buffer.from(physical().subarray(SHIFT_BYTES + 16, SHIFT_BYTES + 21)).toString(), 'hello');
    assert.equal(e.load8(16), 'h'.charCodeAt(0));
    assert.equal(e.load8at20(0), 'o'.charCodeAt(0));
    e.store(100, 0x01020304);
    assert.equal(physical()[SHIFT_BYTES + 100], 4);
    assert.equal(e.v128(96), 0x01020304);
    e.fill(200, 0x78, 3);
    e.copy(300, 16, 5);
    e.init(400);
    const at = (p: number, n: number) =>
      Buffer.from(physical().subarray(SHIFT_BYTES + p, SHIFT_BYTES + p + n)).toString();
    assert.deepEqual([at(200, 3), at(300, 5), at(400, 5)], ['xxx', 'hello', 'later']);
    // Growth answers in the module's pages; the maximum is the module's own.
    assert.equal(e.grow(1), 1);
    assert.equal(e.size(), 2);
    assert.equal(e.grow(3), -1);
    assert.equal(e.grow(2), 2);
    assert.equal(e.size(), 4);
    // The last byte is in bounds, the next one is not, as before the shift.
    e.store(4 * 65536 - 4, 7);
    assert.throws(() => e.load8(4 * 65536), /out of bounds/);
    assert.throws(() => e.fill(4 * 65536 - 1, 0, 2), /out of bounds/);
    // An address that would wrap into the adapter's pages traps instead of reaching them.
    physical().fill(0x55, 0, SHIFT_BYTES);
    assert.throws(() => e.fill(0xffffffff - 10, 0, 0));
    assert.throws(() => e.copy(0, 0xffffffff - 10, 0));
    assert.ok(
      physical()
        .subarray(0, SHIFT_BYTES)
        .every((b) => b === 0x55),
    );
  });

  it("gives the adapter the pages below the module's through cabi_realloc, and no more", async () => {
    const inst = new WebAssembly.Instance(new WebAssembly.Module(shifted(await wat(OPS)) as Uint8Array<ArrayBuffer>));
    const realloc = inst.exports.cabi_realloc as (a: number, b: number, c: number, d: number) => number;
    assert.equal(realloc(0, 0, 8, 65536), 0);
    assert.equal(realloc(0, 0, 8, 65536), 65536);
    assert.throws(() => realloc(0, 0, 8, 8), /unreachable/);
  });

  it('leaves alone a module it cannot shift exactly, and says why', async () => {
    assert.match(
      refusal(await wat('(module (import "env" "memory" (memory 1)) (func (export "_start")))')),
      /imports its memory/,
    );
    assert.match(
      refusal(
        await wat(`(module (memory (export "memory") 1)
          (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (i32.const 0))
          (func (export "_start")))`),
      ),
      /exports its own cabi_realloc/,
    );
    // wit-component prefers this one for the adapter: such a module has seen to the adapter's memory.
    assert.match(
      refusal(
        await wat(`(module (memory (export "memory") 1)
          (func (export "cabi_realloc_adapter") (param i32 i32 i32 i32) (result i32) (i32.const 0))
          (func (export "_start")))`),
      ),
      /exports its own cabi_realloc_adapter/,
    );
    // Only the adapter translates the module's pointers.
    assert.match(
      refusal(await wat('(module (import "env" "log" (func (param i32))) (memory 1) (func (export "_start")))')),
      /imports env.log, which is not preview1/,
    );
    assert.match(
      refusal(
        await wat(`(module (import "wasi_snapshot_preview1" "base" (global $base i32)) (memory 1)
          (data (global.get $base) "x") (func (export "_start")))`),
      ),
      /data segment 0 is not placed at a constant/,
    );
    assert.match(
      refusal(
        await wat('(module (memory 1) (func (export "_start") (drop (i32.load offset=4294901760 (i32.const 0)))))'),
      ),
      /offset would pass 4 GiB/,
    );
    assert.match(refusal(await wat('(module (memory 1) (memory 1) (func (export "_start")))')), /several memories/);
    assert.match(refusal(await wat('(module (memory i64 1) (func (export "_start")))')), /64-bit/);
  });
});

describe('adapter pointer translation', () => {
  it("wraps the real adapter's pointer-taking exports into a valid module", async () => {
    const adapter = patchPreview1Adapter(await readPreview1CommandAdapter());
    const translated = translateAdapterPointers(adapter, SHIFT_BYTES);
    assert.ok(WebAssembly.validate(translated as Uint8Array<ArrayBuffer>));
    const names = (m: Uint8Array) =>
      WebAssembly.Module.exports(new WebAssembly.Module(m as Uint8Array<ArrayBuffer>)).map((e) => e.name);
    assert.deepEqual(names(translated), names(adapter));
  });

  it('hands the adapter physical pointers, never one into its own pages, and puts iovecs back', async () => {
    // A stand-in adapter: its fd_tell answers the pointer it got, its fd_write the first buffer
    // pointer it finds in the iovec array it got (and counts its calls).
    const fake = await wat(`(module (import "env" "memory" (memory 0))
      (global $calls (export "calls") (mut i32) (i32.const 0))
      (func (export "fd_tell") (param i32 i32) (result i32) (local.get 1))
      (func (export "fd_write") (param i32 i32 i32 i32) (result i32)
        (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
        (i32.load (local.get 1))))`);
    const memory = new WebAssembly.Memory({ initial: SHIFT_BYTES / 65536 + 1 });
    const module = new WebAssembly.Module(translateAdapterPointers(fake, SHIFT_BYTES) as Uint8Array<ArrayBuffer>);
    const { exports } = new WebAssembly.Instance(module, { env: { memory } });
    const e = exports as Record<string, (...a: number[]) => number> & { calls: WebAssembly.Global };
    const u32 = (n: number) => n >>> 0;
    assert.equal(u32(e.fd_tell!(0, 8)), SHIFT_BYTES + 8);
    // At or past 4 GiB - SHIFT_BYTES the pointer is out of the module's memory: never wrapped
    // round into the adapter's pages, but out of bounds for the adapter too.
    for (const p of [2 ** 32 - SHIFT_BYTES, 2 ** 32 - 1]) assert.equal(u32(e.fd_tell!(0, p | 0)), 0xffffffff);

    const view = new DataView(memory.buffer);
    const iovs = 64; // virtual address of a one-entry iovec array
    const setIovec = (buf: number, len: number) => {
      view.setUint32(SHIFT_BYTES + iovs, buf, true);
      view.setUint32(SHIFT_BYTES + iovs + 4, len, true);
    };
    setIovec(100, 5);
    assert.equal(e.fd_write!(1, iovs, 1, 0), SHIFT_BYTES + 100);
    assert.equal(view.getUint32(SHIFT_BYTES + iovs, true), 100, 'the module sees its own pointer again');
    // A buffer past 4 GiB - SHIFT_BYTES would wrap into the adapter's pages: EFAULT, no call.
    setIovec(2 ** 32 - SHIFT_BYTES, 1);
    const calls = e.calls.value;
    assert.equal(e.fd_write!(1, iovs, 1, 0), 21);
    assert.equal(e.calls.value, calls);
    assert.equal(view.getUint32(SHIFT_BYTES + iovs, true), 2 ** 32 - SHIFT_BYTES);
  });

  it('refuses an adapter with an export it does not know: its pointers would go untranslated', async () => {
    const adapter = await wat(`(module (import "env" "memory" (memory 0))
      (func (export "fd_close") (param i32) (result i32) (i32.const 0))
      (func (export "fd_frobnicate") (param i32 i32) (result i32) (i32.const 0)))`);
    assert.throws(() => translateAdapterPointers(adapter, SHIFT_BYTES), /fd_frobnicate/);
    const changed = await wat(`(module (import "env" "memory" (memory 0))
      (func (export "fd_tell") (param i32) (result i32) (i32.const 0)))`);
    assert.throws(() => translateAdapterPointers(changed, SHIFT_BYTES), /fd_tell does not have the preview1 signature/);
  });
});
