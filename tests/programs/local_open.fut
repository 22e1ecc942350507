-- Local opens `M.(e)` inside mapped functions: the module's names (operators
-- too) come first, then the enclosing bindings; locals bound inside the
-- parentheses shadow the module's names.

module ops = {
  def twice (x: i64) = 2 * x
  def inc (x: i64) = x + 1
  def (+) (a: f32) (b: f32) = a + b + 1f32
}

-- ==
-- entry: scaled
-- input { [1f32, 2f32, 3f32] 2f32 } output { [3f32, 5f32, 7f32] }
entry scaled (xs: []f32) (k: f32) : []f32 =
  map (\x -> ops.(x * k + 0f32)) xs

-- ==
-- entry: shadowed
-- input { [1i64, 2i64, 3i64] } output { [2i64, 4i64, 6i64] }
entry shadowed (xs: []i64) : []i64 =
  map (\x -> ops.(let inc = twice in inc x)) xs

module grid (real: real) = {
  def int (x: i64) = real.i64 x
  def cells (h: i64) (w: i64) : [h][w]real.t =
    tabulate_2d h w (\y x -> real.(int y + int x / int w))
}

module g64 = grid f64

-- ==
-- entry: functor
-- input { 3i64 2i64 } output { [[0f64, 0.5f64], [1f64, 1.5f64], [2f64, 2.5f64]] }
entry functor (h: i64) (w: i64) : [h][w]f64 = g64.cells h w
