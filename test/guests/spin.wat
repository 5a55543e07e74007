;; A preview1 command that never stops: for timeout and fuel tests.
(module
  (memory (export "memory") 1)
  (func (export "_start")
    (loop $l (br $l))))
