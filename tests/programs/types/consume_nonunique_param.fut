-- Only parameters of unique type (*[]t) may be updated in place.
-- ==
-- error: Consuming "xs", which is not consumable

def main (xs: []i32) : []i32 =
  let xs[0] = 1
  in xs
