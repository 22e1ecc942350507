-- Futhark rejects a literal its inferred type cannot represent.
-- ==
-- error: Literal 128 out of bounds for inferred type i8

def main : (i8, i8, u8) = (-128, 128, 255)
