;; Registry hot-reload test guest, version 2: prints its help whatever it is asked, so a call's
;; output names the version that ran. A preview1 module: builds in milliseconds.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 64) "hot 2.0.0\nHot reload test tool, version 2\n\nKeywords: hot,reload\nPermissionLevel: ReadOnly\n\nUsage: hot [OPTIONS]\n\nOptions:\n  -v, --verbose  Say more\n  -h, --help     Print help\n\00")
  (func (export "_start")
    (local $n i32)
    (block $done (loop $l
      (br_if $done (i32.eqz (i32.load8_u (i32.add (i32.const 64) (local.get $n)))))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $l)))
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (local.get $n))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
