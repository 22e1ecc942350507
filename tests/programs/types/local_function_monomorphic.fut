-- A local function is not generalised over the types it infers (only
-- over its declared type parameters), as in Futhark: `apply` has one type.
-- ==
-- error: Cannot apply "apply"

def main (x: i32) =
  let apply f y = f y
  in apply (apply (i32.+) x) x
