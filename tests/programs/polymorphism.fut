-- Polymorphic functions and values instantiated at several types,
-- including empty arrays whose element type is only known through the
-- instantiation.
-- ==
-- entry: main
-- input { } output { [2, 3] [2.5, 3.5] [true, false] empty([0]f32) empty([0][2]i64) 3 }

def twice 'a (f: a -> a) (x: a): a = f (f x)
def mapmap 'a 'b [n] (f: a -> b) (xs: [n]a): [n]b = map f xs
def empties 'a (xs: []a): []a = filter (\_ -> false) xs
def pairs_of 't (n: i64) (x: t): [n][2]t = replicate n [x, x]

entry main =
  (mapmap (+ 1) [1, 2], mapmap (+ 1.0) [1.5, 2.5], mapmap (\b -> !b) [false, true],
   empties [1f32], pairs_of 0 1i64, twice (twice (+ 1)) (-1))
