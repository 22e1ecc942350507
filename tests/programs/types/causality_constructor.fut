-- Causality: `#None` has the size computed by `gen ()` in the other branch.
-- ==
-- error: Causality check

type option 'a = #None | #Some a

def gen (k: i64) : ?[n].[n]i32 =
  let (n, _) = (k, true)
  in replicate n 0i32

entry main (b: bool) : option ([]i32) =
  if b then #None else #Some (gen 2)
