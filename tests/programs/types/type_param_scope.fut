-- A local function's type parameter may not escape into a type from an
-- outer scope (Futhark's scopeCheck).
-- ==
-- error: "b".*scope-violation

def f x =
  let g 'b (y: b) = if true then y else x
  in g
