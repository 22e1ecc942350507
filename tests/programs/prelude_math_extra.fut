-- Prelude functions added to match Futhark's: exscan, r32/t32/r64/t64,
-- the fNN.*pi functions, rsqrt, uNN.sign/unsign.
-- ==
-- entry: exscans
-- input { [1, 2, 3, 4] } output { [0, 1, 3, 6] [1, 1, 2, 6] }
-- input { empty([0]i32) } output { empty([0]i32) empty([0]i32) }

-- ==
-- entry: conversions
-- input { 7 2.9f32 -2.9f64 } output { 7f32 2 7f64 -2 }

-- ==
-- entry: pis64
-- input { [0f64, 0.5f64, 1f64, 1.5f64, 2f64, -1f64, -0.5f64, 0.25f64] }
-- output { [0f64, 1f64, 0f64, -1f64, 0f64, 0f64, -1f64, 0.7071067811865476f64]
--          [1f64, 0f64, -1f64, 0f64, 1f64, -1f64, 0f64, 0.7071067811865476f64] }

-- ==
-- entry: pis32
-- input { [0f32, 0.5f32, 1f32, 2f32, -1f32] }
-- output { [0f32, 1f32, 0f32, 0f32, 0f32] [1f32, 0f32, -1f32, 1f32, -1f32] [0f32, 0f32, 0f32, 0f32] }

-- ==
-- entry: inverse_pis
-- input { 1f64 } output { 0.5f64 0f64 0.25f64 0.25f64 0.5f64 }

-- ==
-- entry: exact_zeros
-- input { 1e6f64 } output { true true true }

-- `sign`/`unsign` are hidden by the `integral` ascription, as in Futhark;
-- the conversions between same-width types reinterpret the bits.
-- ==
-- entry: unsigned_sign
-- input { 255u8 -1i8 } output { -1i8 255u8 }

entry exscans (xs: []i32) = (exscan (+) 0 xs, exscan (*) 1 xs)
entry conversions (i: i32) (x: f32) (y: f64) = (r32 i, t32 x, r64 i, t64 y)
entry pis64 (xs: []f64) = (map f64.sinpi xs, map f64.cospi xs)
entry pis32 (xs: []f32) = (map f32.sinpi xs, map f32.cospi xs, map f32.tanpi [0, 1, 2, -1])
entry inverse_pis (x: f64) =
  (f64.asinpi x, f64.acospi x, f64.atanpi x, f64.atan2pi x x, f64.rsqrt (x * 4))
entry exact_zeros (x: f64) =
  (f64.sinpi x == 0, f64.cospi (x + 0.5) == 0, f64.cospi x == 1)
entry unsigned_sign (x: u8) (y: i8) = (i8.u8 x, u8.i8 y)
