-- A field given twice in a record expression.
-- ==
-- error: Field "p" previously defined at

def main (x: i32) =
  let r = {p = x, q = x, p = x}
  in r.q
