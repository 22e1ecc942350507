-- Mandelbrot set: escape-time counts over a grid, summarised as an ASCII
-- picture (one row of characters per line) and the total iteration count.
--
--   thorn run examples/mandelbrot.fut < examples/mandelbrot.in

def escape (limit: i32) (cx: f64) (cy: f64) : i32 =
  let (_, _, i) =
    loop (x, y, i) = (0.0, 0.0, 0) while i < limit && x * x + y * y < 4.0 do
      (x * x - y * y + cx, 2.0 * x * y + cy, i + 1)
  in i

def grid (w: i64) (h: i64) (limit: i32) : [h][w]i32 =
  tabulate_2d h w (\r c ->
    let cx = -2.2 + 3.2 * f64.i64 c / f64.i64 w
    let cy = -1.2 + 2.4 * f64.i64 r / f64.i64 h
    in escape limit cx cy)

def shade (limit: i32) (n: i32) : u8 =
  -- ASCII codes of '#', '+', '.' and ' '.
  if n == limit then 35 else if n > limit / 4 then 43 else if n > 4 then 46 else 32

entry main (w: i64) (h: i64) (limit: i32) : ([h][w]u8, i64) =
  let counts = grid w h limit
  let picture = map (map (shade limit)) counts
  let total = i64.sum (map i64.i32 (flatten counts))
  in (picture, total)

-- ==
-- input { 8i64 4i64 20 }
-- output { [[32u8, 32u8, 32u8, 32u8, 32u8, 32u8, 32u8, 32u8],
--           [32u8, 32u8, 32u8, 32u8, 43u8, 35u8, 43u8, 32u8],
--           [32u8, 35u8, 35u8, 35u8, 35u8, 35u8, 35u8, 32u8],
--           [32u8, 32u8, 32u8, 32u8, 43u8, 35u8, 43u8, 32u8]]
--          258i64 }
