-- An array of a lifted type abbreviation is rejected (Futhark's
-- "Cannot create array with elements of lifted type").
-- ==
-- error: Cannot create array with elements of lifted type "arr"

type^ arr = [2]i32

type bad = [3]arr
