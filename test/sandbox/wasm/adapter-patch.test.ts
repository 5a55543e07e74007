// The corrected fd_write of the preview1 adapter (wasm/adapter-patch.ts), on a stand-in adapter
// whose fd_fdstat_get writes its answer and then calls the test back: what the guest's memory
// holds while the check runs, and after a trap in the middle of it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { patchPreview1Adapter } from '../../../src/sandbox/wasm/index.ts';

async function wat(src: string): Promise<Uint8Array> {
  const wabt = await (await import('wabt')).default();
  const m = wabt.parseWat('t.wat', src, {});
  try {
    // The debug names carry `__stack_pointer`, which the patch looks the adapter's stack up by.
    return m.toBinary({ write_debug_names: true }).buffer;
  } finally {
    m.destroy();
  }
}

// fd 1 is open: fd_fdstat_get fills its 24 bytes with 0xee and calls test.probe; any other fd
// is EBADF (8). The original fd_write answers 77, so a call that reached it is told apart.
const STAND_IN = `(module
  (import "env" "memory" (memory 0))
  (import "test" "probe" (func $probe))
  (global $__stack_pointer (mut i32) (i32.const 131072))
  (func (export "fd_fdstat_get") (param $fd i32) (param $stat i32) (result i32)
    (if (i32.ne (local.get $fd) (i32.const 1)) (then (return (i32.const 8))))
    (memory.fill (local.get $stat) (i32.const 0xee) (i32.const 24))
    (call $probe)
    (i32.const 0))
  (func (export "fd_write") (param i32 i32 i32 i32) (result i32) (i32.const 77)))`;

const GUEST_BYTES = Uint8Array.from({ length: 24 }, (_, i) => 0x61 + i);

async function patched(probe: () => void) {
  const bytes = patchPreview1Adapter(await wat(STAND_IN));
  const memory = new WebAssembly.Memory({ initial: 2 });
  const mem = new Uint8Array(memory.buffer);
  mem.set(GUEST_BYTES, 0); // the guest's own data at 0..24
  // One empty iovec at 64: {buf 200, len 0}
  new DataView(memory.buffer).setUint32(64, 200, true);
  const module = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  const { exports } = new WebAssembly.Instance(module, { env: { memory }, test: { probe } });
  const fdWrite = exports.fd_write as (fd: number, iovs: number, len: number, nwritten: number) => number;
  return { fdWrite, low: () => Uint8Array.from(mem.subarray(0, 24)) };
}

describe('preview1 adapter patch: empty fd_write checks the fd', () => {
  it('answers EBADF for an fd that is not open and hands an open one to the original', async () => {
    const a = await patched(() => {});
    assert.equal(a.fdWrite(1234, 64, 1, 48), 8);
    assert.equal(a.fdWrite(1234, 64, 0, 48), 8);
    assert.equal(a.fdWrite(1, 64, 1, 48), 77);
    assert.deepEqual(a.low(), GUEST_BYTES);
  });

  it("never writes the guest's memory: not while the check runs, not when it traps half-way", async () => {
    let seen: Uint8Array | undefined;
    const a = await patched(() => {
      seen = a.low();
    });
    assert.equal(a.fdWrite(1, 64, 1, 48), 77);
    assert.deepEqual(seen, GUEST_BYTES, 'the bytes at 0..24 while fd_fdstat_get ran');

    const trapping = await patched(() => {
      throw new WebAssembly.RuntimeError('unreachable');
    });
    assert.throws(() => trapping.fdWrite(1, 64, 1, 48), WebAssembly.RuntimeError);
    assert.deepEqual(trapping.low(), GUEST_BYTES, 'the bytes at 0..24 after a trap between check and return');
  });
});
