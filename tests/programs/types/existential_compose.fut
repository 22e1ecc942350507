-- Composing with a function whose result size is its argument: the size
-- would be a parameter size of `g`.
-- ==
-- error: Cannot apply "compose" to "iota"

def compose '^a '^b '^c (f: a -> b) (g: b -> c) (x: a) (y: a) : (c, c) =
  (g (f x), g (f y))

def main = let foo = compose iota in foo (\x -> length x) 1 2
