-- `#[unsafe]` removes the assertions of the expression it marks (and of
-- what that calls), as compiled Futhark does (its tests/assert3.fut); a
-- failing assertion elsewhere is still an error.
-- ==
-- input { 3i32 } output { 1i32 }
-- input { 4i32 } output { 2i32 }

-- ==
-- entry: checked
-- input { 3i32 } error: Assertion is false

def half (x: i32) = assert (x % 2 == 0) (x / 2)
def main (x: i32) = #[unsafe] half x
entry checked (x: i32) = half x
