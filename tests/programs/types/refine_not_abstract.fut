-- `with` refines only a type that is still abstract, where the module type
-- is declared.
-- ==
-- error: not an abstract type

module type mt = {type t}
module type mt' = mt with t = i64
module type mt'' = mt' with t = i64
