;; A preview1 guest that keeps its own data at address 0..24 and gives the adapter memory through
;; its cabi_realloc (so its memory is not moved up: its address 0 is memory's address 0). Empty
;; writes to stdout (must succeed, 0) and to an fd that is not open (must be EBADF, 8), then prints
;; "stdout <errno> badfd <errno> kept <1|0>" (kept: 0..24 read the same afterwards) and traps.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (global $bump (mut i32) (i32.const 65536))
  (data (i32.const 0) "abcdefghijklmnopqrstuvwx")
  (data (i32.const 256) "abcdefghijklmnopqrstuvwx")
  (data (i32.const 128) "stdout 0 badfd 0 kept 0\n")
  ;; Bump allocation in the second page, grown as needed; nothing is ever freed.
  (func (export "cabi_realloc") (param i32 i32) (param $align i32) (param $size i32) (result i32)
    (local $at i32)
    (local.set $at (i32.and (i32.add (global.get $bump) (i32.sub (local.get $align) (i32.const 1)))
                            (i32.sub (i32.const 0) (local.get $align))))
    (global.set $bump (i32.add (local.get $at) (local.get $size)))
    (if (i32.gt_u (global.get $bump) (i32.mul (memory.size) (i32.const 65536)))
      (then (drop (memory.grow (i32.add (i32.shr_u (i32.sub (global.get $bump)
        (i32.mul (memory.size) (i32.const 65536))) (i32.const 16)) (i32.const 1))))))
    (local.get $at))
  (func $digit (param $at i32) (param $v i32)
    (i32.store8 (local.get $at) (i32.add (i32.const 48) (local.get $v))))
  (func (export "_start")
    (local $stdout i32) (local $badfd i32)
    (i32.store (i32.const 64) (i32.const 200))
    (i32.store (i32.const 68) (i32.const 0))
    (local.set $stdout (call $fd_write (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 48)))
    (local.set $badfd (call $fd_write (i32.const 1234) (i32.const 64) (i32.const 1) (i32.const 48)))
    (call $digit (i32.const 135) (i32.rem_u (local.get $stdout) (i32.const 10)))
    (call $digit (i32.const 143) (i32.rem_u (local.get $badfd) (i32.const 10)))
    (call $digit (i32.const 150)
      (i32.and
        (i64.eq (i64.load (i32.const 0)) (i64.load (i32.const 256)))
        (i32.and
          (i64.eq (i64.load (i32.const 8)) (i64.load (i32.const 264)))
          (i64.eq (i64.load (i32.const 16)) (i64.load (i32.const 272))))))
    (i32.store (i32.const 64) (i32.const 128))
    (i32.store (i32.const 68) (i32.const 24))
    (drop (call $fd_write (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 48)))
    (unreachable)))
