-- A module's type must take the type parameters its module type does.
-- ==
-- error: type boxed

module type box = {type boxed 'a}
module impl : box = {type boxed = [1]i32}
