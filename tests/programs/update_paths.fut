-- Update paths of fields and indices in any order, in `with`, in `let` and
-- in sections, as in Futhark.
-- ==
-- input { 7i32 }
-- output { 7i32 [[1i32, 7i32], [3i32, 4i32]] 7i32 [7i32, 2i32] 2i32 [2i32, 3i32] }

def main (x: i32) =
  let rs = [{f = 1i32, g = [1i32, 2i32]}, {f = 2i32, g = [3i32, 4i32]}]
  let a = (copy rs with [1].f = x)[1].f
  let m = [[1i32, 2i32], [3i32, 4i32]]
  let m[0][1] = x
  let r = {a = {b = [1i32, 2i32]}}
  let r.a.b[0] = x
  let rs[0].g[1] = 0
  in (a, m, r.a.b[0], r.a.b, (.[0].g[0]) rs + 1, (.[1].g[0:2]) rs |> map (\y -> y - 1))
