;; What a module sees of its own memory, which the sandbox may move (see memory-shift.ts): sizes
;; and growth in pages, a data segment, memory.fill/copy/init, and the last bytes of memory.
;; Prints one line, e.g. "size 1 grow 1 size 2 data hello fill xxx copy hello init world top 7",
;; then loads just past the end of memory, which must trap as out of bounds.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1 3)
  (data (i32.const 16) "hello")
  (data $world "world")
  (data (i32.const 1024) "size ? grow ? size ? data ..... fill ... copy ..... init ..... top ?\n")
  (func $digit (param $at i32) (param $v i32)
    (i32.store8 (i32.add (i32.const 1024) (local.get $at)) (i32.add (i32.const 48) (local.get $v))))
  (func (export "_start")
    (local $top i32)
    (call $digit (i32.const 5) (memory.size))
    (call $digit (i32.const 12) (memory.grow (i32.const 1)))
    (call $digit (i32.const 19) (memory.size))
    (memory.copy (i32.const 1050) (i32.const 16) (i32.const 5))
    (memory.fill (i32.const 1061) (i32.const 120) (i32.const 3))
    (memory.copy (i32.const 1070) (i32.const 1050) (i32.const 5))
    (memory.init $world (i32.const 1081) (i32.const 0) (i32.const 5))
    (local.set $top (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 4)))
    (i32.store (local.get $top) (i32.const 7))
    (call $digit (i32.const 67) (i32.load (local.get $top)))
    (i32.store (i32.const 0) (i32.const 1024))
    (i32.store (i32.const 4) (i32.const 69))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (drop (i32.load (i32.add (local.get $top) (i32.const 4))))))
