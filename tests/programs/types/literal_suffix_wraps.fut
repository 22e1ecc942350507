-- A literal with a type suffix is taken modulo its type, as in Futhark.
-- ==
-- input { 1i32 } output { 255u8 -1i8 -128i8 }

def main (_: i32) = (255u8, 255i8, -128i8)
