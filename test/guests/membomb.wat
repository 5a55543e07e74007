;; Grows memory a page at a time until growth fails, then traps: the memory cap must hold
;; and the call must report trap `memory`.
(module
  (memory (export "memory") 1)
  (func (export "_start")
    (loop $l
      (if (i32.ne (memory.grow (i32.const 16)) (i32.const -1))
        (then (br $l))))
    unreachable))
