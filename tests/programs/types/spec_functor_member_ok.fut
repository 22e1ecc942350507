-- A module type with a parametric module among its specifications is
-- accepted where it is declared.
-- ==
-- input { 3 } output { 3 }

module type value = {type t val x : t}
module type op = (X: value) -> value
module type has_op = {module Op: op}
def main (x: i32) = x
