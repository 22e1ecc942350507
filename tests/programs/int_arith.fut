-- Integer semantics: wrap-around at every width, Futhark's two divisions,
-- shifts and bitwise operators, signed and unsigned comparisons.
-- ==
-- entry: wrap8
-- input { 127i8 1i8 } output { -128i8 125i8 127i8 }
-- input { -128i8 -1i8 } output { 127i8 -126i8 -128i8 }

-- ==
-- entry: wrapu
-- input { 255u8 1u8 } output { 0u8 254u8 255u8 }

-- ==
-- entry: wrapu16
-- input { 0u16 1u16 } output { 1u16 65535u16 0u16 }

-- ==
-- entry: divmod
-- input { -7 2 } output { -4 1 -3 -1 }
-- input { 7 -2 } output { -4 -1 -3 1 }
-- input { -7 -2 } output { 3 -1 3 -1 }
-- input { 7 2 } output { 3 1 3 1 }
-- input { 1 0 } error: division by zero

-- ==
-- entry: udivmod
-- input { 200u32 7u32 } output { 28u32 4u32 }
-- input { 4294967295u32 2u32 } output { 2147483647u32 1u32 }

-- ==
-- entry: shifts
-- input { -8 1 } output { -16 -4 2147483644 }
-- input { 1 31 } output { -2147483648 0 0 }
-- input { 1 40 } output { 0 0 0 }

-- ==
-- entry: bits
-- input { 12 10 } output { 8 14 6 -13 }

-- ==
-- entry: powers
-- input { 2 10 } output { 1024 }
-- input { 3 0 } output { 1 }
-- input { -2 3 } output { -8 }
-- input { 2 31 } output { -2147483648 }

-- ==
-- entry: compare_unsigned
-- input { 255u8 1u8 } output { true false }

entry wrap8 (x: i8) (y: i8) = (x + y, x - y - y, x * y * y)
entry wrapu (x: u8) (y: u8) = (x + y, x - y, x * y)
entry wrapu16 (x: u16) (y: u16) = (x + y, x - y, x * y)
entry divmod (x: i32) (y: i32) = (x / y, x % y, x // y, x %% y)
entry udivmod (x: u32) (y: u32) = (x / y, x % y)
entry shifts (x: i32) (k: i32) = (x << k, x >> k, x >>> k)
entry bits (x: i32) (y: i32) = (x & y, x | y, x ^ y, !x)
entry powers (x: i32) (y: i32) = x ** y
entry compare_unsigned (x: u8) (y: u8) = (x > y, x < y)
