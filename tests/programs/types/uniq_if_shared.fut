-- A branch result whose components coincide stays shared even when the
-- other branch consumed the name that recorded it.
-- ==
-- error: result of if-expression

def main (c: bool) (u: *[]i32) (a: *[]i32) (b: *[]i32) =
  let (r0, r1) = if c then (u, u) else (let _ = u with [0] = 5 in (a, b))
  let r0[0] = 1
  in r1
