-- A field matched twice in a record pattern.
-- ==
-- error: Duplicate fields in record pattern

def main (x: i32) =
  let {f = a, f = b} = {f = x}
  in a + b
