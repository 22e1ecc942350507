-- A partial application that consumes its argument cannot be bound and
-- called more than once (Futhark: "contains consumption").
-- ==
-- error: consumption

def update (xs: *[]i32) (i: i32) (y: i32) =
  xs with [i] = y

def main (a: *[]i32) =
  let f = update a
  in (f 0 0, f 0 0)
