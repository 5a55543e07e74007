// The core-module rewriter: instrumented modules compute the same results, meter fuel
// deterministically, cap memory and flag failed growth, and renumber globals correctly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyWasm,
  FUEL_IMPORT,
  instrumentModule,
  OOM_IMPORT,
  TABLES_IMPORT,
} from '../../../src/sandbox/wasm/index.ts';

async function wat(src: string): Promise<Uint8Array> {
  const wabt = await (await import('wabt')).default();
  const m = wabt.parseWat('t.wat', src, { simd: true, bulk_memory: true, reference_types: true, multi_value: true });
  try {
    return m.toBinary({}).buffer;
  } finally {
    m.destroy();
  }
}

function run(bytes: Uint8Array, fuel = 1n << 62n, tables = 1 << 20) {
  const g = {
    fuel: new WebAssembly.Global({ value: 'i64', mutable: true }, fuel),
    oom: new WebAssembly.Global({ value: 'i32', mutable: true }, 0),
    tables: new WebAssembly.Global({ value: 'i32', mutable: true }, tables),
  };
  const imports = {
    env: { base: new WebAssembly.Global({ value: 'i32', mutable: false }, 100) },
    [FUEL_IMPORT.module]: { [FUEL_IMPORT.name]: g.fuel, [OOM_IMPORT.name]: g.oom, [TABLES_IMPORT.name]: g.tables },
  };
  const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), imports);
  return { exports: inst.exports as Record<string, any>, g };
}

const KITCHEN_SINK =
  `(module
  (import "env" "base" (global $base i32))
  (global $counter (mut i32) (i32.const 7))
  (global $start i32 (global.get $base))
  (global (export "exported") i32 (i32.const 42))
  (memory (export "memory") 1)
  (data (global.get $base) "\\01\\02\\03\\04")
  (table 4 funcref)
  (elem (i32.const 0) $double $triple)
  (type $unary (func (param i32) (result i32)))
  (func $double (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
  (func $triple (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
  (func (export "indirect") (param i32 i32) (result i32) (call_indirect (type $unary) (local.get 1) (local.get 0)))
  (func (export "sum_to") (param $n i32) (result i32) (local $acc i32)
    (block $out (loop $l
      (br_if $out (i32.eqz (local.get $n)))
      (local.set $acc (i32.add (local.get $acc) (local.get $n)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $l)))
    (local.get $acc))
  (func (export "bump") (result i32)
    (global.set $counter (i32.add (global.get $counter) (global.get $start)))
    (global.get $counter))
  (func (export "data_at_base") (result i32) (i32.load (global.get $base)))
  (func (export "pick") (param i32) (result i32)
    (block $c (block $b (block $a (br_table $a $b $c (local.get 0))) (return (i32.const 10))) ` +
  `(return (i32.const 20))) (i32.const 30))
  (func (export "simd") (result i32)
    (i32x4.extract_lane 2 (i32x4.add (v128.const i32x4 1 2 3 4) (v128.const i32x4 10 20 30 40))))
  (func (export "fill") (result i32)
    (memory.fill (i32.const 1000) (i32.const 9) (i32.const 16))
    (memory.copy (i32.const 2000) (i32.const 1000) (i32.const 16))
    (i32.load8_u (i32.const 2015)))
  (func (export "pair") (result i32 i32) (i32.const 1) (i32.const 2))
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
)`;

describe('wasm instrumenter', () => {
  it('keeps results identical across instruction families and renumbered globals', async () => {
    const plain = await wat(KITCHEN_SINK);
    const inst = instrumentModule(plain, { fuel: true, maxMemoryBytes: 4 * 65536 });
    assert.ok(WebAssembly.validate(inst as Uint8Array<ArrayBuffer>));
    const a = new WebAssembly.Instance(new WebAssembly.Module(plain as Uint8Array<ArrayBuffer>), {
      env: { base: new WebAssembly.Global({ value: 'i32', mutable: false }, 100) },
    }).exports as Record<string, any>;
    const b = run(inst).exports;
    for (const [name, args] of [
      ['indirect', [0, 5]],
      ['indirect', [1, 5]],
      ['sum_to', [1000]],
      ['bump', []],
      ['bump', []],
      ['data_at_base', []],
      ['pick', [0]],
      ['pick', [1]],
      ['pick', [7]],
      ['simd', []],
      ['fill', []],
      ['pair', []],
    ] as [string, number[]][]) {
      assert.deepEqual(b[name](...args), a[name](...args), name);
    }
    assert.equal(b.exported.value, 42);
  });

  it('meters fuel deterministically, proportionally to work', async () => {
    const inst = instrumentModule(await wat(KITCHEN_SINK), { fuel: true });
    const used = (n: number) => {
      const { exports, g } = run(inst, 10n ** 12n);
      exports.sum_to(n);
      return 10n ** 12n - (g.fuel.value as bigint);
    };
    assert.equal(used(1000), used(1000));
    const u1 = used(1000);
    const u2 = used(2000);
    assert.ok(u2 > (u1 * 19n) / 10n && u2 < (u1 * 21n) / 10n, `${u1} vs ${u2}`);
  });

  it('charges the path taken: a dispatch loop pays for its small arm, not for the big one it skips', async () => {
    // An interpreter's shape: a loop around a branch; one arm is long (400 instructions), the other short.
    const bigArm = Array.from({ length: 200 }, () => '(local.set $x (i32.add (local.get $x) (i32.const 1)))').join(' ');
    const src = `(module (func (export "spin") (param $n i32) (param $big i32) (local $x i32)
      (block $done (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (if (local.get $big) (then ${bigArm}) (else (local.set $x (i32.const 0))))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))))`;
    const inst = instrumentModule(await wat(src), { fuel: true });
    const used = (big: number) => {
      const { exports, g } = run(inst, 10n ** 12n);
      exports.spin(1000, big);
      return 10n ** 12n - (g.fuel.value as bigint);
    };
    const small = used(0);
    const large = used(1);
    assert.ok(small < 30_000n, `1000 short iterations charged ${small}`);
    assert.ok(large > small * 20n, `long arm ${large} vs short arm ${small}`);
  });

  it('traps when fuel runs out, leaving the counter negative', async () => {
    const { exports, g } = run(instrumentModule(await wat(KITCHEN_SINK), { fuel: true }), 1000n);
    assert.throws(() => exports.sum_to(1_000_000), WebAssembly.RuntimeError);
    assert.ok((g.fuel.value as bigint) < 0n);
  });

  it('caps memory: growth past the cap fails and raises the oom flag', async () => {
    const { exports, g } = run(instrumentModule(await wat(KITCHEN_SINK), { fuel: true, maxMemoryBytes: 4 * 65536 }));
    assert.equal(exports.grow(2), 1);
    assert.equal(g.oom.value, 0);
    assert.equal(exports.grow(5), -1);
    assert.equal(g.oom.value, 1);
    assert.equal((exports.memory as WebAssembly.Memory).buffer.byteLength, 3 * 65536);
  });

  it('bounds tables: growth of all tables together stops at the shared budget and raises the oom flag', async () => {
    const src = `(module
      (table $a 0 funcref) (table $b 0 externref)
      (func (export "grow_a") (param i32) (result i32) (table.grow $a (ref.null func) (local.get 0)))
      (func (export "grow_b") (param i32) (result i32) (table.grow $b (ref.null extern) (local.get 0)))
      (func (export "size_a") (result i32) (table.size $a)))`;
    const { exports, g } = run(
      instrumentModule(await wat(src), { fuel: true, maxMemoryBytes: 64 * 1024 }),
      1n << 62n,
      1000,
    );
    assert.equal(exports.grow_a(600), 0);
    assert.equal(g.tables.value, 400);
    assert.equal(exports.grow_b(500), -1, 'the second table may not take more than is left');
    assert.equal(g.oom.value, 1);
    assert.equal(exports.grow_b(400), 0);
    assert.equal(exports.grow_a(1), -1);
    assert.equal(exports.size_a(), 600);
  });

  it('caps table maxima by the memory limit and refuses a table too large at start', async () => {
    const one = await wat('(module (table (export "t") 1 funcref) (func (export "_start")))');
    const { exports } = run(instrumentModule(one, { fuel: true, maxMemoryBytes: 64 * 1024 }));
    // 64 KiB at 64 bytes an element: the table can never hold more than 1024.
    assert.throws(() => (exports.t as WebAssembly.Table).grow(1024), RangeError);
    assert.equal((exports.t as WebAssembly.Table).grow(1023), 1);
    const big = await wat('(module (table 5000 funcref) (func (export "_start")))');
    assert.throws(
      () => instrumentModule(big, { fuel: true, maxMemoryBytes: 64 * 1024 }),
      /needs 5000 elements at start/,
    );
  });

  it('refuses a module whose initial memory is over the cap, saying so', async () => {
    const big = await wat('(module (memory 100) (func (export "_start")))');
    assert.throws(
      () => instrumentModule(big, { fuel: true, maxMemoryBytes: 1024 * 1024 }),
      /needs 6\.25 MiB at start, the limit is 1 MiB/,
    );
  });

  it('classifies components, commands and everything else', async () => {
    assert.deepEqual(classifyWasm(new Uint8Array([0, 0x61, 0x73, 0x6d, 0x0d, 0, 1, 0])), { kind: 'component' });
    assert.deepEqual(classifyWasm(await wat('(module (func (export "_start")))')), { kind: 'preview1-command' });
    assert.match((classifyWasm(await wat('(module (func (export "run")))')) as { reason: string }).reason, /_start/);
    assert.match(
      (classifyWasm(await wat('(module (import "env" "f" (func)) (func (export "_start")))')) as { reason: string })
        .reason,
      /env\.f/,
    );
    assert.match((classifyWasm(new TextEncoder().encode('#!/bin/sh')) as { reason: string }).reason, /bad magic/);
    assert.equal(classifyWasm(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5])).kind, 'invalid');
  });
});
