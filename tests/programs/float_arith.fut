-- Floats: IEEE arithmetic in each precision, special values, fmod-style %,
-- rounding functions, conversions to and from integers (NaN gives 0, the
-- infinities saturate through i64 and then wrap, as Scalar::convert_to does).
-- ==
-- entry: f32ops
-- input { 0.1f32 0.2f32 } output { 0.3f32 -0.1f32 0.020000001f32 0.5f32 }

-- ==
-- entry: f64ops
-- input { 0.1 0.2 } output { 0.30000000000000004 -0.1 0.020000000000000004 0.5 }

-- ==
-- entry: specials
-- input { 0.0 } output { f64.inf -f64.inf true false }

-- ==
-- entry: fmod
-- input { 7.5 2.0 } output { 1.5 }
-- input { -7.5 2.0 } output { -1.5 }

-- ==
-- entry: rounding
-- input { 2.5 } output { 2.0 3.0 2.0 2.0 }
-- input { -2.5 } output { -2.0 -2.0 -3.0 -2.0 }
-- input { 3.5 } output { 4.0 4.0 3.0 3.0 }

-- ==
-- entry: to_int
-- input { 3.99 } output { 3 3u8 3i64 }
-- input { -3.99 } output { -3 253u8 -3i64 }
-- input { f64.nan } output { 0 0u8 0i64 }
-- input { f64.inf } output { 0 0u8 0i64 }

-- ==
-- entry: half
-- input { 1.0f16 } output { 1.0009766f16 2.0f16 }

entry f32ops (x: f32) (y: f32) = (x + y, x - y, x * y, x / y)
entry f64ops (x: f64) (y: f64) = (x + y, x - y, x * y, x / y)
entry specials (z: f64) = (1 / z, -1 / z, f64.isnan (z / z), f64.isinf (z / z))
entry fmod (x: f64) (y: f64) = x % y
entry rounding (x: f64) = (f64.round x, f64.ceil x, f64.floor x, f64.trunc x)
entry to_int (x: f64) = (i32.f64 x, u8.f64 x, f64.to_i64 x)
entry half (x: f16) = (f16.nextafter x 2, x + x)
