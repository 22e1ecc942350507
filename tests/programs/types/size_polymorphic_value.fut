-- A size-polymorphic value binding whose type has an existential size is
-- rejected (Futhark #1993).
-- ==
-- error: size-polymorphic value binding
def foo [n] = (iota n, filter (> 5) (iota n))
