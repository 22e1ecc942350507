-- A type abbreviation's size parameter must be used in its definition.
-- ==
-- error: Size parameter "\[k\]" unused

type grid [k] = [3][3]f32
