-- A '^a value may be a function, so it may not be returned from `if`.
-- ==
-- error: may not be of function type

def cond '^a (b: bool) (x: a) (y: a) : a =
  if b then x else y
