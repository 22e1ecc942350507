-- A size only in a function-typed parameter comes from the function given.
-- ==
-- input { } output { 4i64 }

def width [n] (_f: bool -> [n]bool) : i64 = n
def main = width (replicate 4)
