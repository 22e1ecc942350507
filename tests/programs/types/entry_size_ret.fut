-- An entry point's size parameter only in its return type.
-- ==
-- error: must not be size-polymorphic in their return type

entry make [k] (v: f32) : [k]f32 = replicate k v
