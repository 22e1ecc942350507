-- A consumed argument may not alias the closure of the applied function.
-- ==
-- error: aliases the function being applied

def main (x: *[]i32) : i32 =
  let f = \(y: *[]i32) : i32 -> let y[0] = 10 in y[0] + x[0]
  in f x
