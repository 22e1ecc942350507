-- A lambda declared to return a unique value may not return a free
-- variable.
-- ==
-- error: Unique-typed return value is aliased to "x", which is not consumable

def main (x: *[]i32) : i32 =
  let f = \(_: i32) : *[]i32 -> x
  let r = f 0
  let r[0] = 10
  in x[0]
