-- | The parts of Futhark's compiler-internal `intrinsics` module that its
-- test suite uses directly: views of a flat array through a strided
-- layout (`flat_index_2d` .. `4d`) and updates through one
-- (`flat_update_2d` .. `4d`). Element (i, j) of the view is
-- `as[offset + i*s1 + j*s2]`; every position is bounds-checked, with the
-- usual index error. Accumulators (`intrinsics.acc`): `scatter_stream`
-- and `hist_stream` run a function once per input element, in order,
-- with an accumulator over the destination array, to which `acc_write`
-- writes (out-of-bounds indices are ignored, as scatter ignores them);
-- `hist_stream` combines each write with the bin's value through its
-- operator. The type `acc` is abstract, as in Futhark.

import "soacs"
import "array"

-- An accumulator at run time is the destination array with the operator
-- that writes combine through (none for scatter_stream); the type stays
-- abstract so that a program can use it only through acc_write.
module accumulators : {
  type~ acc 't
  val scatter_stream [k] [n] 'a 'b : *[k]a -> (*acc ([k]a) -> b -> acc ([k]a)) -> [n]b -> *[k]a
  val hist_stream [k] [n] 'a 'b : *[k]a -> (a -> a -> a) -> a -> (*acc ([k]a) -> b -> acc ([k]a)) -> [n]b -> *[k]a
  val acc_write [n] 't : *acc ([n]t) -> i64 -> t -> *acc ([n]t)
} = {
  type~ acc 't = t

  def scatter_stream [k] 'a 'b (dest: *[k]a) (f: *acc ([k]a) -> b -> acc ([k]a)) (bs: []b): *[k]a =
    __intrinsic "scatter_stream" dest f bs

  def hist_stream [k] 'a 'b (dest: *[k]a) (op: a -> a -> a) (ne: a) (f: *acc ([k]a) -> b -> acc ([k]a))
                  (bs: []b): *[k]a =
    __intrinsic "hist_stream" dest op ne f bs

  def acc_write [n] 't (acc: *acc ([n]t)) (i: i64) (v: t): *acc ([n]t) =
    __intrinsic "acc_write" acc i v
}

module intrinsics = {
  def flat_index_2d [n] 'a (as: [n]a) (offset: i64) (n1: i64) (s1: i64) (n2: i64) (s2: i64): [n1][n2]a =
    tabulate_2d n1 n2 (\i j -> as[offset + i * s1 + j * s2])

  def flat_index_3d [n] 'a (as: [n]a) (offset: i64) (n1: i64) (s1: i64) (n2: i64) (s2: i64) (n3: i64) (s3: i64)
      : [n1][n2][n3]a =
    tabulate_3d n1 n2 n3 (\i j k -> as[offset + i * s1 + j * s2 + k * s3])

  def flat_index_4d [n] 'a (as: [n]a) (offset: i64) (n1: i64) (s1: i64) (n2: i64) (s2: i64) (n3: i64) (s3: i64)
                    (n4: i64) (s4: i64): [n1][n2][n3][n4]a =
    tabulate_3d n1 n2 n3 (\i j k -> tabulate n4 (\l -> as[offset + i * s1 + j * s2 + k * s3 + l * s4]))

  -- Writes `vs` to positions `is` of `as`; an index out of bounds fails as
  -- the in-place update there would.
  def update_at [n] [m] 'a (as: *[n]a) (is: [m]i64) (vs: [m]a): *[n]a =
    let oob = filter (\x -> x < 0 || x >= n) is
    let as = if length oob > 0 then as with [oob[0]] = vs[0] else as
    in scatter as is vs

  def flat_update_2d [n] [k] [l] 'a (as: *[n]a) (offset: i64) (s1: i64) (s2: i64) (vs: [k][l]a): *[n]a =
    update_at as (flatten (tabulate_2d k l (\i j -> offset + i * s1 + j * s2))) (flatten vs)

  def flat_update_3d [n] [k] [l] [p] 'a (as: *[n]a) (offset: i64) (s1: i64) (s2: i64) (s3: i64) (vs: [k][l][p]a)
      : *[n]a =
    update_at as (flatten_3d (tabulate_3d k l p (\i j h -> offset + i * s1 + j * s2 + h * s3))) (flatten_3d vs)

  def flat_update_4d [n] [k] [l] [p] [q] 'a (as: *[n]a) (offset: i64) (s1: i64) (s2: i64) (s3: i64) (s4: i64)
                     (vs: [k][l][p][q]a): *[n]a =
    update_at as (flatten_4d (tabulate_3d k l p (\i j h -> tabulate q (\g -> offset + i * s1 + j * s2 + h * s3 + g * s4))))
              (flatten_4d vs)

  type~ acc 't = accumulators.acc t

  def scatter_stream [k] 'a 'b (dest: *[k]a) (f: *acc ([k]a) -> b -> acc ([k]a)) (bs: []b): *[k]a =
    accumulators.scatter_stream dest f bs

  def hist_stream [k] 'a 'b (dest: *[k]a) (op: a -> a -> a) (ne: a) (f: *acc ([k]a) -> b -> acc ([k]a))
                  (bs: []b): *[k]a =
    accumulators.hist_stream dest op ne f bs

  def acc_write [n] 't (acc: *acc ([n]t)) (i: i64) (v: t): *acc ([n]t) =
    accumulators.acc_write acc i v
}
