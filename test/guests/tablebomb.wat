;; Grows ten funcref tables until growth fails, then traps: tables are engine memory, so
;; their growth must be bounded like linear memory (the call ends with trap `memory` and the
;; host lives on).
(module
  (memory (export "memory") 1)
  (table $t0 0 funcref) (table $t1 0 funcref) (table $t2 0 funcref) (table $t3 0 funcref)
  (table $t4 0 funcref) (table $t5 0 funcref) (table $t6 0 funcref) (table $t7 0 funcref)
  (table $t8 0 funcref) (table $t9 0 funcref)
  (func (export "_start")
    (loop $l0 (br_if $l0 (i32.ne (table.grow $t0 (ref.null func) (i32.const 100000)) (i32.const -1))))
    (loop $l1 (br_if $l1 (i32.ne (table.grow $t1 (ref.null func) (i32.const 100000)) (i32.const -1))))
    (loop $l2 (br_if $l2 (i32.ne (table.grow $t2 (ref.null func) (i32.const 100000)) (i32.const -1))))
    (loop $l3 (br_if $l3 (i32.ne (table.grow $t3 (ref.null func) (i32.const 100000)) (i32.const -1))))
    (loop $l4 (br_if $l4 (i32.ne (table.grow $t4 (ref.null func) (i32.const 100000)) (i32.const -1))))
    (loop $l5 (br_if $l5 (i32.ne (table.grow $t5 (ref.null func) (i32.const 100000)) (i32.const -1))))
    (loop $l6 (br_if $l6 (i32.ne (table.grow $t6 (ref.null func) (i32.const 100000)) (i32.const -1))))
    (loop $l7 (br_if $l7 (i32.ne (table.grow $t7 (ref.null func) (i32.const 100000)) (i32.const -1))))
    (loop $l8 (br_if $l8 (i32.ne (table.grow $t8 (ref.null func) (i32.const 100000)) (i32.const -1))))
    (loop $l9 (br_if $l9 (i32.ne (table.grow $t9 (ref.null func) (i32.const 100000)) (i32.const -1))))
    unreachable))
