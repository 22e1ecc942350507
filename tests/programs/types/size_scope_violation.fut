-- The size of an unannotated parameter (`ys: []i32`) belongs to the
-- function's scope: it may not become a size bound in a deeper one, here
-- a local function's parameter (Futhark's linkVarToDim).
-- ==
-- error: "n".*scope violation

def main (ys: []i32) =
  let f (n: i64) (xs: [n]i32) = zip xs ys
  in f 3
