-- `uncurry f` would take an array whose sizes are the arguments it no
-- longer receives by name.
-- ==
-- error: Existential size would appear in function parameter of return type

def f (n: i64) (m: i64) (b: [n][m]bool) = b[0, 0]

def g = uncurry f

def main x y = g x y
