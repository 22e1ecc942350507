-- An unannotated parameter's type is fixed before the later parameters
-- are bound: its size may not become one of them (Futhark's levels, here
-- stamps: the order of bindings).
-- ==
-- error: "n".*scope violation

def f xs n = zip xs (iota n)

def main (ys: []i32) = f ys 3
