-- A size written as an expression keeps its syntax even when it simplifies
-- to a name (`1 * b` is b): unflatten solves n = 1, m = b from it.
-- ==
-- input { [[1f32, 2f32], [3f32, 4f32]] } output { [[1f32, 2f32], [3f32, 4f32]] }

def main [b] (a: [b][b]f32) : [b][b]f32 =
  head (unflatten (a :> [1 * b][b]f32))
