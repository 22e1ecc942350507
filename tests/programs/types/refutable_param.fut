-- A literal pattern outside a match is refutable.
-- ==
-- error: Refutable pattern not allowed here

def only_zero (0: i32) = true
