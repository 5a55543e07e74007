// The preview1 adapter's side of a shifted module (memory-shift.ts): the module passes its own
// ("virtual") addresses, SHIFT_BYTES below the physical ones the adapter uses. Every adapter
// export that takes a pointer is replaced by a wrapper that adds SHIFT_BYTES to each pointer
// parameter and calls the original; pointers stored in the module's memory are translated too:
// the buffers of iovec arrays (added before the call, taken off after) and the argv/environ
// entries args_get/environ_get write (taken off after).
//
// A pointer at or past 4 GiB - SHIFT_BYTES is out of the module's memory: it becomes 0xffffffff
// (out of bounds for the adapter too), never an address in the adapter's own pages.

import { replaceAdapterExports } from './adapter-patch.ts';
import { encS64, encU32 } from './reader.ts';

/**
 * Parameters of every preview1 function (wasi_snapshot_preview1.witx, core ABI): `i` i32,
 * `I` i64, `p` a pointer into the module's memory. Strings and arrays are a pointer and a length.
 * The adapter's two extensions a module may import are listed too.
 */
const SIGNATURES: Readonly<Record<string, string>> = {
  args_get: 'pp',
  args_sizes_get: 'pp',
  environ_get: 'pp',
  environ_sizes_get: 'pp',
  clock_res_get: 'ip',
  clock_time_get: 'iIp',
  fd_advise: 'iIIi',
  fd_allocate: 'iII',
  fd_close: 'i',
  fd_datasync: 'i',
  fd_fdstat_get: 'ip',
  fd_fdstat_set_flags: 'ii',
  fd_fdstat_set_rights: 'iII',
  fd_filestat_get: 'ip',
  fd_filestat_set_size: 'iI',
  fd_filestat_set_times: 'iIIi',
  fd_pread: 'ipiIp',
  fd_prestat_get: 'ip',
  fd_prestat_dir_name: 'ipi',
  fd_pwrite: 'ipiIp',
  fd_read: 'ipip',
  fd_readdir: 'ipiIp',
  fd_renumber: 'ii',
  fd_seek: 'iIip',
  fd_sync: 'i',
  fd_tell: 'ip',
  fd_write: 'ipip',
  path_create_directory: 'ipi',
  path_filestat_get: 'iipip',
  path_filestat_set_times: 'iipiIIi',
  path_link: 'iipiipi',
  path_open: 'iipiiIIip',
  path_readlink: 'ipipip',
  path_remove_directory: 'ipi',
  path_rename: 'ipiipi',
  path_symlink: 'piipi',
  path_unlink_file: 'ipi',
  poll_oneoff: 'ppip',
  proc_exit: 'i',
  proc_raise: 'i',
  sched_yield: '',
  random_get: 'pi',
  sock_accept: 'iip',
  sock_recv: 'ipiipp',
  sock_send: 'ipiip',
  sock_shutdown: 'ii',
  adapter_open_badfd: 'p',
  adapter_close_badfd: 'i',
  adapter_monotonic_clock_set_paused: 'i',
};

/** Functions whose second and third parameters are an iovec/ciovec array and its length. */
const IOVEC_FUNCS = new Set(['fd_read', 'fd_write', 'fd_pread', 'fd_pwrite', 'sock_recv', 'sock_send']);
/** Functions that write pointers into the module's memory, with the one that gives their count. */
const POINTER_ARRAYS: Readonly<Record<string, string>> = {
  args_get: 'args_sizes_get',
  environ_get: 'environ_sizes_get',
};
/** Adapter exports a module never calls with its pointers: they face the component, not the module. */
const COMPONENT_FACING = (name: string) =>
  name === 'cabi_import_realloc' || name === 'reset_adapter_state' || name.startsWith('wasi:cli/run@');

/** Functions that return nothing (every other one returns an errno). */
const NO_RESULT = new Set(['proc_exit', 'adapter_monotonic_clock_set_paused']);

const EFAULT = 21;
const I32 = 0x7f;
const I64 = 0x7e;

/** Code that pushes the physical address for the virtual one in local `p`. */
function physical(p: number, shift: number): number[] {
  // select(0xffffffff, p + shift, p >= 2^32 - shift)
  return [0x41, 0x7f, 0x20, p, 0x41, ...encS64(BigInt(shift)), 0x6a, 0x20, p].concat([
    0x41,
    ...encS64(BigInt(-shift)),
    0x4f,
    0x1b,
  ]);
}

/** Pushes every parameter, pointers made physical; `iovs` (a local) stands for parameter 1. */
function args(sig: string, shift: number, iovs?: number): number[] {
  return [...sig].flatMap((kind, i) => {
    if (i === 1 && iovs !== undefined) return [0x20, iovs];
    return kind === 'p' ? physical(i, shift) : [0x20, i];
  });
}

/** `for (i = 0; i < count; i++) body(addr)`, where addr = base + i * stride is pushed by `at`. */
function forEach(i: number, count: number[], base: number, stride: number, body: (at: number[]) => number[]) {
  const at = [0x20, base, 0x20, i, 0x41, stride, 0x6c, 0x6a];
  return [0x41, 0, 0x21, i, 0x02, 0x40, 0x03, 0x40, 0x20, i, ...count, 0x4f, 0x0d, 1]
    .concat(body(at))
    .concat([0x20, i, 0x41, 1, 0x6a, 0x21, i, 0x0c, 0, 0x0b, 0x0b]);
}

/** A wrapper that makes pointer parameters physical and calls `original`. */
function plainWrapper(sig: string, original: number, shift: number): number[] {
  return [0x00, ...args(sig, shift), 0x10, ...encU32(original), 0x0b];
}

/**
 * A wrapper for a function taking an iovec array: every non-empty buffer must be in the
 * module's memory (else EFAULT, before anything happens); their pointers are made physical in
 * place for the call and put back after it. (A read into a buffer that overlaps its own iovec
 * array would see the put-back applied to the bytes it read there; no runtime does that.)
 */
function iovecWrapper(sig: string, original: number, shift: number): number[] {
  const n = sig.length;
  const [i, errno, iovs] = [n, n + 1, n + 2];
  const S = encS64(BigInt(shift));
  const len = [0x20, 2];
  return [
    ...[0x01, 0x03, I32],
    ...physical(1, shift),
    ...[0x21, iovs],
    ...forEach(i, len, iovs, 8, (at) => [
      ...[...at, 0x28, 2, 4, 0x41, 0, 0x47],
      ...[...at, 0x28, 2, 0, 0x41, ...encS64(BigInt(-shift)), 0x4f, 0x71],
      ...[0x04, 0x40, 0x41, EFAULT, 0x0f, 0x0b],
    ]),
    ...forEach(i, len, iovs, 8, (at) => [...at, ...at, 0x28, 2, 0, 0x41, ...S, 0x6a, 0x36, 2, 0]),
    ...args(sig, shift, iovs),
    ...[0x10, ...encU32(original), 0x21, errno],
    ...forEach(i, len, iovs, 8, (at) => [...at, ...at, 0x28, 2, 0, 0x41, ...S, 0x6b, 0x36, 2, 0]),
    ...[0x20, errno, 0x0b],
  ];
}

/**
 * A wrapper for args_get/environ_get: after the call, the pointers the adapter wrote into the
 * array are made virtual. Their count comes from the matching *_sizes_get, asked with 8 bytes
 * of the adapter's own stack (its `__stack_pointer`) as the answer's place.
 */
function pointerArrayWrapper(original: number, sizes: number, stackPointer: number, shift: number): number[] {
  const [errno, count, i, array, scratch] = [2, 3, 4, 5, 6];
  const sp = encU32(stackPointer);
  return [
    ...[0x01, 0x05, I32],
    ...[0x23, ...sp, 0x41, 16, 0x6b, 0x22, scratch, 0x24, ...sp],
    ...[0x20, scratch, 0x20, scratch, 0x41, 4, 0x6a, 0x10, ...encU32(sizes), 0x21, errno],
    ...[0x20, scratch, 0x28, 2, 0, 0x21, count],
    ...[0x20, scratch, 0x41, 16, 0x6a, 0x24, ...sp],
    ...[0x20, errno, 0x04, 0x40, 0x20, errno, 0x0f, 0x0b],
    ...physical(0, shift),
    ...[0x22, array, ...physical(1, shift), 0x10, ...encU32(original), 0x22, errno],
    ...[0x04, 0x40, 0x20, errno, 0x0f, 0x0b],
    ...forEach(i, [0x20, count], array, 4, (at) => [
      ...[...at, ...at, 0x28, 2, 0, 0x41, ...encS64(BigInt(shift)), 0x6b, 0x36, 2, 0],
    ]),
    ...[0x20, errno, 0x0b],
  ];
}

/** The value types a signature string stands for. */
const valueTypes = (sig: string) => [...sig].map((k) => (k === 'I' ? I64 : I32));

/**
 * The (already patched) adapter for a module whose memory moved up by `shift` bytes. Throws when
 * the adapter exports a function this does not know or with another signature than preview1's:
 * a pointer it does not translate would reach the wrong memory, so such a module is not shifted.
 */
export function translateAdapterPointers(adapter: Uint8Array, shift: number): Uint8Array {
  return replaceAdapterExports(adapter, (a) => {
    const check = (name: string, sig: string) => {
      const { params, results } = a.signature(name);
      const expected = valueTypes(sig);
      const resultOk = NO_RESULT.has(name) ? results.length === 0 : results.length === 1 && results[0] === I32;
      if (params.length !== expected.length || params.some((p, k) => p !== expected[k]) || !resultOk) {
        throw new Error(`the adapter's ${name} does not have the preview1 signature`);
      }
    };
    const replacements: Record<string, number[]> = {};
    for (const name of a.exportedFuncs()) {
      if (COMPONENT_FACING(name)) continue;
      const sig = SIGNATURES[name];
      if (sig === undefined) throw new Error(`the adapter exports ${name}, which this does not know`);
      check(name, sig);
      if (!sig.includes('p')) continue;
      const original = a.func(name);
      const sizes = POINTER_ARRAYS[name];
      if (IOVEC_FUNCS.has(name)) replacements[name] = iovecWrapper(sig, original, shift);
      else if (sizes) {
        check(sizes, SIGNATURES[sizes]!);
        replacements[name] = pointerArrayWrapper(original, a.func(sizes), a.global('__stack_pointer'), shift);
      } else replacements[name] = plainWrapper(sig, original, shift);
    }
    return replacements;
  });
}
