-- A non-lifted abbreviation may not stand for a function type, not even
-- through a lifted type parameter.
-- ==
-- error: Non-lifted type abbreviations may not contain functions

type t '^a = a
