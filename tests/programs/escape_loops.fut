-- While loops whose trip count differs per element (the native tier runs
-- them masked across vector lanes, docs/architecture.md "Masked While
-- loops and lane loops"): Mandelbrot's escape counts, planned at 512 rows
-- as one element per row with the row's pixels as lanes, at 9 rows as a
-- flat map; Collatz step counts with a branch in the loop body.

entry mandel (n: i64) (iters: i32): [n][n]i32 =
  map (\i ->
         map (\j ->
                let cr = 3.0 * f64.i64 j / f64.i64 n - 2.0
                let ci = 3.0 * f64.i64 i / f64.i64 n - 1.5
                let (_, _, it) =
                  loop (zr, zi, it) = (0.0, 0.0, 0i32) while it < iters && zr * zr + zi * zi < 4.0 do
                    (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, it + 1)
                in it)
             (iota n))
      (iota n)

-- ==
-- entry: mandel
-- input { 9i64 12i32 }
-- output { [[1, 1, 1, 2, 2, 2, 2, 2, 2],
--           [1, 1, 2, 3, 3, 3, 3, 2, 2],
--           [1, 3, 3, 3, 4, 7, 12, 4, 3],
--           [1, 3, 4, 5, 10, 12, 12, 12, 3],
--           [1, 5, 9, 12, 12, 12, 12, 12, 4],
--           [1, 5, 9, 12, 12, 12, 12, 12, 4],
--           [1, 3, 4, 5, 10, 12, 12, 12, 3],
--           [1, 3, 3, 3, 4, 7, 12, 4, 3],
--           [1, 1, 2, 3, 3, 3, 3, 2, 2]] }

-- Sums of the middle and last rows and of the whole image.
-- ==
-- entry: mandel_sums
-- input { 512i64 16i32 }
-- output { 6802 909 1586192i64 }
entry mandel_sums (n: i64) (iters: i32): (i32, i32, i64) =
  let img = mandel n iters
  in (i32.sum img[n / 2], i32.sum img[n - 1], i64.sum (map i64.i32 (flatten img)))

-- ==
-- entry: collatz
-- input { [1i64, 2i64, 3i64, 7i64, 27i64, 97i64, 871i64, 0i64, -5i64, 63728127i64] }
-- output { [0, 1, 7, 16, 111, 118, 178, 0, 0, 949] }
entry collatz (xs: []i64): []i32 =
  map (\x -> let (_, steps) = loop (v, s) = (x, 0i32) while v > 1 && s < 1000 do
                                (if v % 2 == 0 then v / 2 else 3 * v + 1, s + 1)
             in steps) xs
