-- A size that goes out of scope may not be (only) the size of a
-- parameter of the inferred result.
-- ==
-- error: Unknown size "n" in parameter of "f"

def f (x: bool) =
  let (n, _) = if x then (10, true) else (20, true)
  in \(_: [n]bool) -> true
