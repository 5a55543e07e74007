// Moving a module's memory out into an image: the rewritten module behaves the same with a
// memory built from the image, modules it cannot express keep their own memory, and a pool's
// reset memory is byte-identical to the image while a grown one is never handed out again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryPool } from '../../../src/sandbox/memory-pool.ts';
import {
  decodeImage,
  encodeImage,
  externalizeMemory,
  MEMORY_IMPORT,
  type MemoryImage,
} from '../../../src/sandbox/wasm/index.ts';

async function wat(src: string): Promise<Uint8Array> {
  const wabt = await (await import('wabt')).default();
  const m = wabt.parseWat('t.wat', src, { bulk_memory: true, reference_types: true });
  try {
    return m.toBinary({}).buffer;
  } finally {
    m.destroy();
  }
}

const module = (bytes: Uint8Array) => new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);

const DATA_MODULE = `(module
  (memory (export "memory") 2 8)
  (data (i32.const 16) "first")
  (data (i32.const 18) "OVER")
  (data (i32.const 70000) "\\01\\02\\03")
  (data $passive "passive bytes")
  (data (i32.const 100) "")
  (func (export "init") (param i32) (memory.init $passive (local.get 0) (i32.const 0) (i32.const 7)))
  (func (export "grow") (result i32) (memory.grow (i32.const 1))))`;

function imageBytes(image: MemoryImage): Uint8Array {
  const out = new Uint8Array(image.minPages * 65536);
  for (const c of image.chunks) out.set(c.bytes, c.offset);
  return out;
}

describe('memory image', () => {
  it('the rewritten module with a memory from the image starts byte-identical and behaves the same', async () => {
    const original = await wat(DATA_MODULE);
    const ext = externalizeMemory(original);
    assert.ok(ext, 'a plain module is externalized');
    assert.deepEqual(WebAssembly.Module.imports(module(ext.module)), [
      { module: MEMORY_IMPORT.module, name: MEMORY_IMPORT.name, kind: 'memory' },
    ]);
    const a = new WebAssembly.Instance(module(original)).exports as Record<string, any>;
    const pool = new MemoryPool(decodeImage(encodeImage(ext.image)));
    const mem = pool.take();
    const b = new WebAssembly.Instance(module(ext.module), { [MEMORY_IMPORT.module]: { [MEMORY_IMPORT.name]: mem } })
      .exports as Record<string, any>;
    assert.deepEqual(
      new Uint8Array((b.memory as WebAssembly.Memory).buffer),
      new Uint8Array((a.memory as WebAssembly.Memory).buffer),
    );
    assert.equal(new TextDecoder().decode(new Uint8Array(mem.buffer, 16, 6)), 'fiOVER');
    // Passive segments still work; active ones are dropped, as after a normal instantiation.
    a.init(5000);
    b.init(5000);
    assert.equal(new TextDecoder().decode(new Uint8Array(mem.buffer, 5000, 7)), 'passive');
    assert.equal(b.grow(), a.grow());
  });

  it('leaves alone what it cannot express: a start function, an imported memory, a computed offset', async () => {
    assert.equal(externalizeMemory(await wat('(module (memory 1) (func $s) (start $s))')), undefined);
    assert.equal(externalizeMemory(await wat('(module (import "env" "m" (memory 1)))')), undefined);
    assert.equal(
      externalizeMemory(await wat('(module (import "env" "g" (global i32)) (memory 1) (data (global.get 0) "x"))')),
      undefined,
    );
    assert.equal(externalizeMemory(await wat('(module (func (export "f")))')), undefined);
  });

  it('a pool resets every byte a guest wrote, and drops a memory that grew', async () => {
    const ext = externalizeMemory(await wat(DATA_MODULE))!;
    const pool = new MemoryPool(ext.image);
    const expected = imageBytes(ext.image);
    const used = pool.take();
    const view = new Uint8Array(used.buffer);
    view.fill(0xab); // every byte, image chunks and zeros alike
    pool.recycle(used);
    const again = pool.take();
    assert.equal(again, used, 'the reset memory is reused');
    assert.deepEqual(new Uint8Array(again.buffer), expected);
    again.grow(1);
    pool.recycle(again);
    const fresh = pool.take();
    assert.notEqual(fresh, again, 'a grown memory is never handed out again');
    assert.equal(fresh.buffer.byteLength, ext.image.minPages * 65536);
    assert.deepEqual(new Uint8Array(fresh.buffer), expected);
  });

  it('a pool that resets only what changed still finds every single byte a guest wrote', async () => {
    // Chunks and zeros over several pages, so ranges meet at chunk edges and page boundaries.
    const ext = externalizeMemory(
      await wat(`(module (memory (export "memory") 5)
        (data (i32.const 16) "first") (data (i32.const 65530) "across a page")
        (data (i32.const 200000) "\\01\\02\\03"))`),
    )!;
    const pool = new MemoryPool(ext.image);
    const expected = imageBytes(ext.image);
    const size = expected.length;
    // One byte at a time, each in a memory that is otherwise exactly the image: a reset that
    // skipped the range holding it would hand the next instance that byte.
    const offsets = [0, 15, 16, 20, 21, 4095, 4096, 65529, 65530, 65535, 65536, 65542, 65543];
    offsets.push(131071, 131072, 199999, 200000, 200002, 200003, size - 65537, size - 65536, size - 2, size - 1);
    for (let at = 0; at < size; at += 4093) offsets.push(at);
    for (const at of offsets) {
      const mem = pool.take();
      const view = new Uint8Array(mem.buffer);
      assert.deepEqual(view, expected);
      view[at] = (expected[at]! + 1) & 0xff;
      pool.recycle(mem);
      assert.equal(pool.take(), mem, 'the reset memory is reused');
      assert.equal(view[at], expected[at], `byte ${at} kept what the last guest wrote`);
      pool.recycle(mem);
    }
    const last = pool.take();
    assert.deepEqual(new Uint8Array(last.buffer), expected);
  });
});
