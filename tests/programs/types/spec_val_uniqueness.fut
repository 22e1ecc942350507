-- A module's function may not consume what its module type's does not.
-- ==
-- error: val g

module type has_g = {val g : []f32 -> f32}
module impl : has_g = {
  def g (xs: *[]f32) = (xs with [0] = 1)[0]
}
