-- A function of type a -> a preserves sizes: `\xs -> xs ++ xs` would make
-- a size equal to twice itself (Futhark's occurs check). A loop may grow
-- its parameter's size; that is not this.
-- ==
-- error: Occurs check

def ap 'a (f: a -> a) (x: a) = f x

def main [n] (arr: [n]i32) = ap (\xs -> xs ++ xs) arr
