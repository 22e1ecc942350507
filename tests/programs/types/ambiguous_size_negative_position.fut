-- A size parameter that only a function-typed parameter mentions must be
-- determined by the argument function's type.
-- ==
-- error: Ambiguous size "n" arising from instantiated size parameter of "f"

def f [n] (g: [n]i64 -> i64) : i64 = n

def main = f (\xs -> xs[0])
