;; Registry hot-reload test guest, version 1: prints its help whatever it is asked, so a call's
;; output names the version that ran. The help's first line names the tool after argv[0] (the
;; file's name, as the registry runs it), like a component shared by several bundled tools, so
;; the tests can drop it under any name. A preview1 module: builds in milliseconds.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 64) " 1.0.0\nHot reload test tool, version 1\n\nKeywords: hot,reload\nPermissionLevel: ReadOnly\n\nUsage: hot [OPTIONS]\n\nOptions:\n  -v, --verbose  Say more\n  -h, --help     Print help\n\00")
  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $done (loop $l
      (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $l)))
    (local.get $n))
  (func (export "_start")
    ;; argv pointers at 4096, their strings from 8192 (argc and the buffer size at 40 and 44).
    (drop (call $args_sizes_get (i32.const 40) (i32.const 44)))
    (drop (call $args_get (i32.const 4096) (i32.const 8192)))
    ;; argv[0], then the rest of the help: two writes (the preview1 adapter writes one iovec a call).
    (i32.store (i32.const 0) (i32.load (i32.const 4096)))
    (i32.store (i32.const 4) (call $strlen (i32.load (i32.const 4096))))
    (i32.store (i32.const 8) (i32.const 64))
    (i32.store (i32.const 12) (call $strlen (i32.const 64)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 32)))
    (drop (call $fd_write (i32.const 1) (i32.const 8) (i32.const 1) (i32.const 32)))))
