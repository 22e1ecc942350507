-- A parametric module whose parameter requires more than the parametric
-- module type's parameter (`with t = i64`) does not match it.
-- ==
-- error: type Op.t = i64

module type const = {type t val x : t}
module type op = (X: const) -> const
module type container = {module Op: op}

module C : container = {
  module Op (X: const with t = i64) : const = {
    type t = i64
    def x = X.x + 1
  }
}

entry main = 0i32
