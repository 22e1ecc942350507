-- Matches must be exhaustive; the error names a missing case.
-- ==
-- error: Unmatched cases in match expression: #bar

type foobar = #foo i32 | #bar i32

def main (x: i32) : i32 =
  match (#foo x : foobar)
  case #foo y -> y
