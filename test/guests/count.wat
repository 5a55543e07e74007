;; Counts to N (first argument's length decides nothing; N is fixed at 1,000,000) and exits
;; 0: a finite, metered workload for fuel tests.
(module
  (memory (export "memory") 1)
  (func (export "_start")
    (local $i i32)
    (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1000000))))))
