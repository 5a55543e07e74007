;; Unbounded recursion: must end in trap `stack`, not a dead host.
(module
  (memory (export "memory") 1)
  (func $down (param i64) (result i64)
    (i64.add (call $down (i64.add (local.get 0) (i64.const 1))) (i64.const 1)))
  (func (export "_start")
    (drop (call $down (i64.const 0)))))
