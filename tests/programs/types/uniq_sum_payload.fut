-- Payload components of a constructor that alias each other make the
-- value self-aliased, so it cannot be unique.
-- ==
-- error: aliased to some other component

type~ t = #foo ([]i32) ([]i32) | #bar

def f (xs: *[]i32) : *t = #foo xs xs

def main (n: i64) = match f (replicate n 0) case #foo a _ -> a[0] case #bar -> 0
