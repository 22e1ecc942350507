-- A record whose fields are named 0 to n-1 is a tuple, as in Futhark
-- (tests/records2.fut, records7.fut): in expressions, patterns and types,
-- in any field order.
-- ==
-- input { 2i32 } output { 3i32 1i32 10i32 }
type pair = {1: i32, 0: i32}
def f (x: i32) : pair = {1 = x - 1, 0 = x + 1}
def main (x: i32) =
  let (a, b) = f x
  let {0 = c, 1 = d, 2 = e} = (a, b, 6i32)
  in (c, d, (c + d + e) - (a + b) + 4 * 1)
