;; Empty writes through the preview1 adapter: to an fd that is not open (must be EBADF, 8) and to
;; stdout (must succeed, 0). Prints "badfd <errno> stdout <errno> kept <1|0>", where kept says the
;; first 24 bytes of memory read the same afterwards.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; 0..24: a pattern the check must leave alone; iovecs at 64 (one empty); line at 128; nwritten at 48
  (data (i32.const 0) "abcdefghijklmnopqrstuvwx")
  (data (i32.const 256) "abcdefghijklmnopqrstuvwx")
  (data (i32.const 128) "badfd 0 stdout 0 kept 0\n")
  (func $digit (param $at i32) (param $v i32)
    (i32.store8 (local.get $at) (i32.add (i32.const 48) (local.get $v))))
  (func (export "_start")
    (local $badfd i32) (local $stdout i32)
    (i32.store (i32.const 64) (i32.const 200))
    (i32.store (i32.const 68) (i32.const 0))
    ;; no buffers at all, to an fd never opened
    (local.set $badfd (call $fd_write (i32.const 1234) (i32.const 64) (i32.const 0) (i32.const 48)))
    ;; one empty buffer, to stdout
    (local.set $stdout (call $fd_write (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 48)))
    (call $digit (i32.const 134) (i32.rem_u (local.get $badfd) (i32.const 10)))
    (call $digit (i32.const 143) (i32.rem_u (local.get $stdout) (i32.const 10)))
    (call $digit (i32.const 150)
      (i32.and
        (i64.eq (i64.load (i32.const 0)) (i64.load (i32.const 256)))
        (i32.and
          (i64.eq (i64.load (i32.const 8)) (i64.load (i32.const 264)))
          (i64.eq (i64.load (i32.const 16)) (i64.load (i32.const 272))))))
    (i32.store (i32.const 64) (i32.const 128))
    (i32.store (i32.const 68) (i32.const 24))
    (drop (call $fd_write (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 48)))))
