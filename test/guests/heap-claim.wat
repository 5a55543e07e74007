;; Claims memory the way AssemblyScript's heap does: after its first WASI call it takes every byte
;; from the end of its data up to memory.size as its own and writes over all of it (again after
;; growing by a page), then prints its arguments and environment, one per line, with every buffer
;; in that space. Through the preview1 adapter the adapter's pages must not be among those bytes.
;; Then it writes a line through two ciovecs, the first empty with an address past its memory, and
;; prints "kept 1" when its iovec array and nwritten read as they should afterwards.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $environ_get (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; 0..64 scratch (iovecs at 0, nwritten at 32, sizes at 40); the "heap" from 1024
  (data (i32.const 64) "two iovecs\n")
  (data (i32.const 96) "kept 0\n")
  (func $claim
    (memory.fill (i32.const 1024) (i32.const 0xa5)
      (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 1024))))
  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $done (loop $l
      (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $l)))
    (local.get $n))
  (func $puts (param $p i32)
    (local $len i32)
    (local.set $len (call $strlen (local.get $p)))
    (i32.store8 (i32.add (local.get $p) (local.get $len)) (i32.const 10))
    (i32.store (i32.const 0) (local.get $p))
    (i32.store (i32.const 4) (i32.add (local.get $len) (i32.const 1)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 32))))
  (func $dump (param $array i32) (param $count i32)
    (local $i i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
      (call $puts (i32.load (i32.add (local.get $array) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l))))
  (func (export "_start")
    (drop (call $args_sizes_get (i32.const 40) (i32.const 44)))
    (call $claim)
    (drop (memory.grow (i32.const 1)))
    (call $claim)
    ;; argv at 1024, its strings at 8192; environ at 2048, its strings at 32768
    (drop (call $args_get (i32.const 1024) (i32.const 8192)))
    (call $dump (i32.const 1024) (i32.load (i32.const 40)))
    (drop (call $environ_sizes_get (i32.const 40) (i32.const 44)))
    (drop (call $environ_get (i32.const 2048) (i32.const 32768)))
    (call $dump (i32.const 2048) (i32.load (i32.const 40)))
    (i32.store (i32.const 0) (i32.const 0xfffffff0))
    (i32.store (i32.const 4) (i32.const 0))
    (i32.store (i32.const 8) (i32.const 64))
    (i32.store (i32.const 12) (i32.const 11))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 2) (i32.const 32)))
    (i32.store8 (i32.const 101)
      (i32.add (i32.const 48)
        (i32.and (i32.eq (i32.load (i32.const 0)) (i32.const 0xfffffff0))
          (i32.and (i32.eq (i32.load (i32.const 8)) (i32.const 64))
            (i32.eq (i32.load (i32.const 32)) (i32.const 11))))))
    (i32.store (i32.const 0) (i32.const 96))
    (i32.store (i32.const 4) (i32.const 7))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 32)))))
