-- A function returning a non-unique value cannot be passed where a unique
-- result is promised.
-- ==
-- error: non-unique

def cons (f: () -> *[2]i32) : *[2]i32 =
  f () with [0] = 1

def main (x: [2]i32) : *[2]i32 =
  let f () : [2]i32 = x
  in cons f
