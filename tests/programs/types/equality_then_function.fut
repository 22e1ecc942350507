-- A value compared with == cannot also be applied.
-- ==
-- error: equality

def f y = (y == y, y 1)
