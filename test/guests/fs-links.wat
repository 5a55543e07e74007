;; Links and trailing slashes through the preview1 adapter, in the first preopen (fd 3): prints
;; one line per step, "<step> <errno>" (errno in decimal: 0 ok, 63 perm, 69 rofs, 76 notcapable).
;; Steps: mkdir source; rename source/ -> target; symlink target -> link; readlink link (prints the
;; target); symlink ../outside -> out (climbs out: refused); create file f; link f -> g.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_create_directory" (func $mkdir (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_rename" (func $rename (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $symlink (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_readlink" (func $readlink (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open" (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_link" (func $link (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; strings at 256.., line buffer at 1024, iovec at 0, scratch results at 16..
  (data (i32.const 256) "source")      ;; 256 len 6
  (data (i32.const 264) "source/")     ;; 264 len 7
  (data (i32.const 272) "target")      ;; 272 len 6
  (data (i32.const 280) "link")        ;; 280 len 4
  (data (i32.const 288) "../outside")  ;; 288 len 10
  (data (i32.const 300) "out")         ;; 300 len 3
  (data (i32.const 304) "f")           ;; 304 len 1
  (data (i32.const 308) "g")           ;; 308 len 1
  (data (i32.const 320) "mkdir ")      ;; 320 len 6
  (data (i32.const 328) "rename-slash ") ;; 328 len 13
  (data (i32.const 344) "symlink ")    ;; 344 len 8
  (data (i32.const 352) "readlink ")   ;; 352 len 9
  (data (i32.const 364) "symlink-out ") ;; 364 len 12
  (data (i32.const 380) "create ")     ;; 380 len 7
  (data (i32.const 388) "link ")       ;; 388 len 5
  ;; writes `len` bytes at `p` to stdout
  (func $out (param $p i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $p))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  ;; prints the label, the errno in decimal, and a newline
  (func $report (param $label i32) (param $len i32) (param $errno i32)
    (call $out (local.get $label) (local.get $len))
    (i32.store8 (i32.const 1024) (i32.add (i32.const 48) (i32.div_u (local.get $errno) (i32.const 10))))
    (i32.store8 (i32.const 1025) (i32.add (i32.const 48) (i32.rem_u (local.get $errno) (i32.const 10))))
    (i32.store8 (i32.const 1026) (i32.const 10))
    (call $out (i32.const 1024) (i32.const 3)))
  (func (export "_start")
    (local $n i32)
    (call $report (i32.const 320) (i32.const 6) (call $mkdir (i32.const 3) (i32.const 256) (i32.const 6)))
    (call $report (i32.const 328) (i32.const 13)
      (call $rename (i32.const 3) (i32.const 264) (i32.const 7) (i32.const 3) (i32.const 272) (i32.const 6)))
    (call $report (i32.const 344) (i32.const 8)
      (call $symlink (i32.const 272) (i32.const 6) (i32.const 3) (i32.const 280) (i32.const 4)))
    ;; readlink: the target goes to 2048, its length to 16
    (call $report (i32.const 352) (i32.const 9)
      (call $readlink (i32.const 3) (i32.const 280) (i32.const 4) (i32.const 2048) (i32.const 64) (i32.const 16)))
    (call $out (i32.const 352) (i32.const 9))
    (i32.store8 (i32.add (i32.const 2048) (i32.load (i32.const 16))) (i32.const 10))
    (call $out (i32.const 2048) (i32.add (i32.load (i32.const 16)) (i32.const 1)))
    (call $report (i32.const 364) (i32.const 12)
      (call $symlink (i32.const 288) (i32.const 10) (i32.const 3) (i32.const 300) (i32.const 3)))
    ;; create f: oflags CREAT (1), rights read+write, fd to 20
    (call $report (i32.const 380) (i32.const 7)
      (call $open (i32.const 3) (i32.const 0) (i32.const 304) (i32.const 1) (i32.const 1)
        (i64.const 0x1fffffff) (i64.const 0x1fffffff) (i32.const 0) (i32.const 20)))
    (call $report (i32.const 388) (i32.const 5)
      (call $link (i32.const 3) (i32.const 0) (i32.const 304) (i32.const 1) (i32.const 3) (i32.const 308) (i32.const 1)))))
