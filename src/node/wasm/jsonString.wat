;; The end of a JSON string, checked to be spelled exactly as JSON.stringify writes it, sixteen bytes at a time.
;; The caller copies a window of a line to address 0 and puts a line feed after it; jsonStringScan.ts explains
;; the windows. `npm run wasm` turns this file into jsonStringWasm.ts.
(module
  (memory (export "memory") 2)
  ;; Where a scan that returned -2 stopped: a stop byte at or after its limit, where the next window begins.
  (global $stopped (export "stopped") (mut i32) (i32.const 0))
  ;; Nonzero when a scanned byte was above 0x7f (the caller then checks the string as UTF-8).
  (global $high (export "high") (mut i32) (i32.const 0))

  ;; Scans the string's bytes from $from. Returns just past its closing quote; -1 when the string is not in
  ;; JSON.stringify's form (a raw control character, an escape JSON.stringify never writes); -2 when a stop byte
  ;; at or past $limit came first ($stopped holds where).
  (func (export "scan") (param $from i32) (param $limit i32) (result i32)
    (local $i i32) (local $v v128) (local $seen v128) (local $m i32) (local $b i32) (local $e i32) (local $c i32)
    (local.set $i (local.get $from))
    (loop $next
      ;; Plain bytes, sixteen at a time: a stop is a control character, the quote or the backslash.
      (block $found
        (loop $plain
          (local.set $v (v128.load align=1 (local.get $i)))
          (local.set $seen (v128.or (local.get $seen) (local.get $v)))
          (local.set $m
            (i8x16.bitmask
              (v128.or
                (v128.or
                  (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20)))
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22))))
                (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))))
          (br_if $found (local.get $m))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $plain)))
      (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $m))))
      (global.set $high (i8x16.bitmask (local.get $seen)))
      (if (i32.ge_u (local.get $i) (local.get $limit))
        (then
          (global.set $stopped (local.get $i))
          (return (i32.const -2))))
      (local.set $b (i32.load8_u (local.get $i)))
      (if (i32.eq (local.get $b) (i32.const 0x22))
        (then (return (i32.add (local.get $i) (i32.const 1)))))
      ;; A raw control character: not even JSON.
      (if (i32.ne (local.get $b) (i32.const 0x5c))
        (then (return (i32.const -1))))
      ;; The one-letter escapes: \n \" \\ \t \r \b \f.
      (local.set $e (i32.load8_u offset=1 (local.get $i)))
      (if (i32.or
            (i32.or
              (i32.or (i32.eq (local.get $e) (i32.const 0x6e)) (i32.eq (local.get $e) (i32.const 0x22)))
              (i32.or (i32.eq (local.get $e) (i32.const 0x5c)) (i32.eq (local.get $e) (i32.const 0x74))))
            (i32.or
              (i32.or (i32.eq (local.get $e) (i32.const 0x72)) (i32.eq (local.get $e) (i32.const 0x62)))
              (i32.eq (local.get $e) (i32.const 0x66))))
        (then
          (local.set $i (i32.add (local.get $i) (i32.const 2)))
          (br $next)))
      ;; Otherwise only `\u00` and two lower-case hex digits naming a control character without a letter
      ;; escape: not `\/`, `\u0041`, `\u001F`, `\u000a` or a surrogate.
      (if (i32.ne (i32.and (i32.load offset=1 align=1 (local.get $i)) (i32.const 0xffffff)) (i32.const 0x303075))
        (then (return (i32.const -1))))
      (local.set $c (i32.load8_u offset=5 (local.get $i)))
      (if (i32.le_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 9))
        (then (local.set $c (i32.sub (local.get $c) (i32.const 0x30))))
        (else
          (if (i32.le_u (i32.sub (local.get $c) (i32.const 0x61)) (i32.const 5))
            (then (local.set $c (i32.sub (local.get $c) (i32.const 0x57))))
            (else (return (i32.const -1))))))
      (local.set $b (i32.load8_u offset=4 (local.get $i)))
      (if (i32.eq (local.get $b) (i32.const 0x31))
        (then (local.set $c (i32.add (local.get $c) (i32.const 16))))
        (else
          (if (i32.ne (local.get $b) (i32.const 0x30))
            (then (return (i32.const -1))))))
      ;; 0x08, 0x09, 0x0a, 0x0c and 0x0d have letter escapes (the bits of 0x3700).
      (if (i32.and (i32.lt_u (local.get $c) (i32.const 14)) (i32.shr_u (i32.const 0x3700) (local.get $c)))
        (then (return (i32.const -1))))
      (local.set $i (i32.add (local.get $i) (i32.const 6)))
      (br $next))
    (unreachable)))
