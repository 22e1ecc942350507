-- A coercion to a type abbreviation with a size argument checks that size
-- when the program runs.
-- ==
-- input { [1, 2, 3] [4, 5, 6] } output { [1, 2, 3, 4, 5, 6] }
-- input { [1, 2, 3] [4, 5] } error: cannot match shape

type vec [k] = [k]i32
def main [n] [m] (a: vec [n]) (b: vec [m]) = (a :> vec [n]) ++ (b :> vec [n])
