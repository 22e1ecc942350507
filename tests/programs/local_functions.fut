-- Local (let-bound) functions, including polymorphic ones used at two
-- types, closures over local variables, sections of user operators and
-- operator definitions with their precedence.
-- ==
-- input { 3 } output { [3, 3] [true, true] 13 [4, 5] 7 14 }

def (**>) (x: i32) (y: i32) = x * 2 + y

def main (k: i32) =
  let dup 't (x: t) = [x, x]
  let add_k (x: i32) = x + k
  let compose f g x = f (g x)
  let xs = map (+ k) [1, 2]
  in (dup k, dup true, compose add_k (* 2) 5, xs, (1 **> 2) + 3, 2 **> (3 **> 4))
