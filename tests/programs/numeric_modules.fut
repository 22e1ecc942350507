-- The numeric modules: constants, conversions, bit operations and float
-- functions, for several types.
-- ==
-- entry: limits
-- input { } output { 127i8 -128i8 65535u16 0u16 2147483647 -2147483648 18446744073709551615u64 }

-- ==
-- entry: conversions
-- input { 300 } output { 44i8 300i64 300.0f32 true 300u32 }
-- input { -1 } output { -1i8 -1i64 -1.0f32 true 4294967295u32 }

-- ==
-- entry: bitops
-- input { 12u32 } output { 2 28 2 1 0 13u32 }

-- ==
-- entry: floats
-- input { 2.0 } output { 1.4142135623730951 0.6931471805599453 1.0 7.38905609893065 true }

-- ==
-- entry: float_bits
-- input { 1.0f32 } output { 1065353216u32 1.0f32 1 -1.0f32 }

-- ==
-- entry: sums
-- input { [3.5f32, -1.0f32, 2.5f32] } output { 5.0f32 -8.75f32 3.5f32 -1.0f32 }
-- input { empty([0]f32) } output { 0.0f32 1.0f32 -f32.inf f32.inf }

entry limits = (i8.highest, i8.lowest, u16.highest, u16.lowest, i32.highest, i32.lowest, u64.highest)
entry conversions (x: i32) = (i8.i32 x, i64.i32 x, f32.i32 x, bool.i32 x, u32.i32 x)
entry bitops (x: u32) = (u32.popc x, u32.clz x, u32.ctz x, u32.get_bit 3 x, u32.get_bit 0 x, u32.set_bit 0 x 1)
entry floats (x: f64) = (f64.sqrt x, f64.log x, f64.log2 x, f64.exp x, f64.isnan (f64.sqrt (-x)))
entry float_bits (x: f32) = (f32.to_bits x, f32.from_bits (f32.to_bits x), f32.get_bit 29 x, f32.set_bit 31 x 1)
entry sums (xs: []f32) = (f32.sum xs, f32.product xs, f32.maximum xs, f32.minimum xs)
