-- A parameter may not be an array of functions.
-- ==
-- error: Cannot create array with elements of lifted type

def f (arr: [](i32 -> i32)) = arr
