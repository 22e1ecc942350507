-- A module value seen through its module type has the spec's type: a
-- polymorphic definition (`def copy = copy`) ascribed a monomorphic spec
-- (t = f32 through a functor) may be an entry point (futhark-benchmarks'
-- babelstream).
module type kernels = {
  type t
  val copy [n] : [n]t -> *[n]t
  val scale [n] : t -> [n]t -> [n]t
}

module kernels (P: real) : kernels with t = P.t = {
  type t = P.t
  def copy = copy
  def scale s = map (P.* s)
}

module f32_kernels = kernels f32

-- ==
-- entry: f32_copy
-- input { [1f32, 2f32] } output { [1f32, 2f32] }
entry f32_copy = f32_kernels.copy

-- ==
-- entry: f32_scale
-- input { [1f32, 2f32] } output { [0.5f32, 1f32] }
entry f32_scale = f32_kernels.scale 0.5
