;; Growth probe (preview1 command): prints its memory size in pages (as a digit) and y/n for
;; "page 0 is unmarked", then marks page 0 and grows memory by a page it also marks.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $flag (param $at i32) (param $ok i32)
    (i32.store8 (local.get $at) (select (i32.const 121) (i32.const 110) (local.get $ok))))
  (func (export "_start")
    (i32.store8 (i32.const 200) (i32.add (memory.size) (i32.const 48)))
    (call $flag (i32.const 201) (i32.eqz (i32.load (i32.const 65000))))
    (i32.store8 (i32.const 202) (i32.const 10))
    (i32.store (i32.const 0) (i32.const 200))
    (i32.store (i32.const 4) (i32.const 3))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (i32.store (i32.const 65000) (i32.const 5))
    (drop (memory.grow (i32.const 1)))
    (i32.store (i32.const 70000) (i32.const 6))))
