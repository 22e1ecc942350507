-- But its type may not have an existential size.
-- ==
-- error: size-polymorphic value binding

def evens [n] = (iota n, filter (\i -> i % 2 == 0) (iota n))
