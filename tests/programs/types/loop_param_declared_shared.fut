-- A loop parameter declared without * is not consumable.
-- ==
-- error: "acc".*not consumable

def main (xs: *[]i32) =
  loop (acc: []i32) = xs for i < 3 do
    acc with [i] = 0
