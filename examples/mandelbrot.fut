-- # The Mandelbrot set
--
-- Escape-time counts over a grid of the complex plane. This file is a
-- literate program: `thorn literate examples/mandelbrot.fut` runs the
-- directives (the `-- >` lines) and writes `examples/mandelbrot.md`, with
-- the pictures in `examples/mandelbrot-img/`. `thorn run` runs its `main`:
--
--     thorn run examples/mandelbrot.fut < examples/mandelbrot.in
--
-- prints the set as ASCII art and the total iteration count.

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

-- The origin is in the set: its orbit never escapes.

-- > escape 100i32 0.0f64 0.0f64

-- A point is black when it is in the set; outside, its colour goes from
-- dark blue to white with the number of steps it took to escape.

def colour (limit: i32) (n: i32) : u32 =
  if n == limit then 0xFF000000
  else let t = f32.sqrt (f32.i32 n / f32.i32 limit)
       let channel (x: f32) = u32.f32 (255 * f32.min 1 x)
       in 0xFF000000 | (channel (3 * t) << 16) | (channel (2 * t) << 8) | channel (0.4 + 2 * t)

entry image (w: i64) (h: i64) (limit: i32) : [h][w]u32 =
  map (map (colour limit)) (grid w h limit)

-- > :img image 480i64 320i64 200i32

-- The same counts as ASCII art, one character per point, and the total
-- number of iterations.

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
