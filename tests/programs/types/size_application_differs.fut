-- A size written as an application (`length xs`, here from iota's
-- argument) is only the same size as the same application: Futhark
-- compares size expressions syntactically, so it is not the n that xs has.
-- ==
-- error: do not match

def main [n] (xs: [n]i32) : [n]i64 = iota (length xs)
