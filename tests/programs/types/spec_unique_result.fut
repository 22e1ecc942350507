-- A function whose declared result is not unique does not match a module
-- type that specifies a unique result.
-- ==
-- error: The module type requires a unique result

module type mt = {val f [n] : [n]i32 -> ?[d].*[d]i32}
module m = {def f (ns: []i32) : []i32 = ns}: mt
