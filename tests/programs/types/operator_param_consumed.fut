-- A parameter named by an operator is a variable like any other.
-- ==
-- error: consumed

def main ((<+>): *[]i32) =
  let _ = (<+>) with [0] = 0
  in (<+>)
