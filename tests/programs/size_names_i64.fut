-- A parameter used as a size is an i64 even without an annotation, as in
-- Futhark ("if a name is used as a size, then it's probably an i64").
-- ==
-- input { 3i64 [1, 2, 3] } output { [1, 2, 3] }
def main n (xs: [n]i32) = xs
