-- Liftedness that Futhark accepts: size-lifted parameters in branches,
-- lifted abbreviations of functions, less lifted definitions than specs.
-- ==
-- input { true 2 } output { 3 [1i64, 2i64] }

type^ fn = i32 -> i32
type~ vec = []i64

module type mt = {type^ t type~ u}
module m : mt = {type t = i32 type u = [2]i64}

def pick '~a (b: bool) (x: a) (y: a) : a = if b then x else y

def apply (f: fn) (x: i32) = f x

def main (b: bool) (x: i32) : (i32, []i64) =
  let v : vec = pick b [1, 2] [3, 4]
  in (apply (+ 1) x, v)
