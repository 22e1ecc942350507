-- Updating a record field with a value of another type.
-- ==
-- error: Type mismatch when updating record field "w"

def f (r: {w: f32}) = r with w = 1i32
