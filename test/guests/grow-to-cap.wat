;; Grows its memory a page at a time until growth fails (the sandbox's memory cap), then prints
;; "pages N", N its size in pages. The preview1 adapter's own pages count against the same cap,
;; and the adapter must still work once the module has taken all the rest.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "pages ??\n")
  (func (export "_start")
    (local $n i32)
    (block $full (loop $grow
      (br_if $full (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
      (br $grow)))
    (local.set $n (memory.size))
    (i32.store8 (i32.const 22) (i32.add (i32.const 48) (i32.div_u (local.get $n) (i32.const 10))))
    (i32.store8 (i32.const 23) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))))
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 9))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
