-- | The array-level derivative rules of thorn's SOAC-granular automatic
-- differentiation (interp/eval/ad_soac.cpp, after notes-ad.md, seed 002).
-- They are ordinary Futhark, so the host and GPU backends flatten and run
-- them like any other code: that is what makes `vjp`/`jvp` run "at the
-- speed of the backends". Not meant to be called by programs; the names are
-- kept out of the way under `ad_rules_f32`/`ad_rules_f64`.

import "soacs"
import "math"
import "zip"

module ad_rules (R: float) = {
  type t = R.t

  -- Adding adjoint contributions (`+=` of the reverse rule).
  def vadd [n] (a: [n]t) (b: [n]t) : *[n]t = map2 (\x y -> R.(x + y)) a b

  -- reduce (*): the forward sweep counts zeros and multiplies the other
  -- elements, so the return sweep never divides by zero (notes-ad.md §3).
  def prod_fwd [n] (xs: [n]t) : (i64, t) =
    reduce (\(c1, p1) (c2, p2) -> (c1 + c2, R.(p1 * p2)))
           (0, R.i64 1)
           (map (\x -> if R.(x == i64 0) then (1, R.i64 1) else (0, x)) xs)

  def prod_vjp [n] (xs: [n]t) (zs: i64) (p: t) (ybar: t) : *[n]t =
    map (\x -> if zs == 0 then R.(p / x * ybar)
               else if zs == 1 && R.(x == i64 0) then R.(p * ybar)
               else R.i64 0) xs

  -- reduce (*) in forward mode: pairs (x, x') under the product rule (no
  -- division, so zeros need no care).
  def prod_jvp [n] (xs: [n]t) (dxs: [n]t) : t =
    (reduce (\(a, da) (b, db) -> R.((a * b, da * b + a * db))) (R.i64 1, R.i64 0) (zip xs dxs)).1

  -- min/max: the arg-index of the result (the lowest index among ties), so
  -- the return sweep gives the whole adjoint to one element.
  def argmax [n] (xs: [n]t) : (t, i64) =
    reduce (\(v1, i1) (v2, i2) ->
              if R.(v1 > v2) then (v1, i1) else if R.(v2 > v1) then (v2, i2)
              else if i1 < i2 then (v1, i1) else (v2, i2))
           (R.lowest, n) (zip xs (iota n))

  def argmin [n] (xs: [n]t) : (t, i64) =
    reduce (\(v1, i1) (v2, i2) ->
              if R.(v1 < v2) then (v1, i1) else if R.(v2 < v1) then (v2, i2)
              else if i1 < i2 then (v1, i1) else (v2, i2))
           (R.highest, n) (zip xs (iota n))

  def onehot (n: i64) (k: i64) (ybar: t) : *[n]t =
    map (\i -> if i == k then ybar else R.i64 0) (iota n)

  -- scan (+): the adjoint of an inclusive sum scan is a reversed sum scan.
  def scan_add_vjp [n] (ybars: [n]t) : *[n]t =
    let r = scan (\a b -> R.(a + b)) (R.i64 0) (map (\i -> ybars[n - 1 - i]) (iota n))
    in map (\i -> r[n - 1 - i]) (iota n)

  -- reduce_by_index (+): each value's adjoint is its bin's (0 out of bounds).
  def hist_add_vjp [n] [w] (is: [n]i64) (ybars: [w]t) : *[n]t =
    map (\i -> if i >= 0 && i < w then ybars[i] else R.i64 0) is

  -- A sum of adjoint contributions (free variables of a mapped function).
  def sum [n] (xs: [n]t) : t = reduce (\a b -> R.(a + b)) (R.i64 0) xs
}

module ad_rules_f64 = ad_rules f64
module ad_rules_f32 = ad_rules f32
