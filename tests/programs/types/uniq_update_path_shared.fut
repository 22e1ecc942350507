-- An in-place update through a field path may not update an array that
-- another component of the same value also holds.
-- ==
-- error: shares memory with

def main (u: *[3]i32) =
  let r = {x = {y = u}, z = u}
  let r.x.y[0] = 1
  in r.z
