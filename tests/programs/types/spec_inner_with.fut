-- `with inner.t = u` must agree with the inner module's definition.
-- ==
-- error: module type requires

module type has_t = {type t}
module type outer = {module inner: has_t}
module m : outer with inner.t = f32 = {module inner = {type t = i64}}
