-- | The array-level derivative rules of thorn's SOAC-granular automatic
-- differentiation (interp/eval/ad_sweep_rules.cpp, after notes-ad.md, seed 002).
-- They are ordinary Futhark, so the host and GPU backends flatten and run
-- them like any other code: that is what makes `vjp`/`jvp` run "at the
-- speed of the backends". Not meant to be called by programs; the names are
-- kept out of the way under `ad_rules_f32`/`ad_rules_f64`.

import "soacs"
import "math"
import "zip"
import "array"

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

  -- reduce_by_index (*): per bin, the product of the non-zero values and the
  -- count of zeros (notes-ad.md §3), so the return sweep never divides by 0.
  -- Returns the result and what the return sweep needs.
  def hist_mul_fwd [n] [w] (dst: [w]t) (is: [n]i64) (vs: [n]t) : ([w]t, [w]t, [w]i64) =
    let nz = reduce_by_index (replicate w (R.i64 1)) (\a b -> R.(a * b)) (R.i64 1) is
                             (map (\v -> if R.(v == i64 0) then R.i64 1 else v) vs)
    let zc = reduce_by_index (replicate w 0) (+) 0 is (map (\v -> if R.(v == i64 0) then 1 else 0) vs)
    in (map3 (\d p c -> if c == 0 then R.(d * p) else R.i64 0) dst nz zc, nz, zc)

  def hist_mul_vjp [n] [w] (dst: [w]t) (is: [n]i64) (vs: [n]t) (nz: [w]t) (zc: [w]i64) (ybars: [w]t)
                 : ([w]t, [n]t) =
    let dbar = map3 (\p c yb -> if c == 0 then R.(p * yb) else R.i64 0) nz zc ybars
    let vbar = map2 (\i v ->
                       if i >= 0 && i < w then
                         let pb = R.(dst[i] * ybars[i])
                         in if zc[i] == 0 then R.(pb * (nz[i] / v))
                            else if zc[i] == 1 && R.(v == i64 0) then R.(nz[i] * pb)
                            else R.i64 0
                       else R.i64 0) is vs
    in (dbar, vbar)

  -- reduce_by_index (*) in forward mode: pairs under the product rule.
  def hist_mul_jvp [n] [w] (dst: [w]t) (ddst: [w]t) (is: [n]i64) (vs: [n]t) (dvs: [n]t) : [w]t =
    let (p, dp) = unzip (reduce_by_index (replicate w (R.i64 1, R.i64 0))
                                         (\(a, da) (b, db) -> R.((a * b, da * b + a * db)))
                                         (R.i64 1, R.i64 0) is (zip vs dvs))
    in map4 (\d dd q dq -> R.(dd * q + d * dq)) dst ddst p dp

  -- reduce_by_index min/max: the arg-index of each bin's result, -1 where
  -- the destination's element wins (it wins ties; among the values the
  -- lowest index wins).
  def hist_arg [n] [w] (is_max: bool) (dst: [w]t) (is: [n]i64) (vs: [n]t) : ([w]t, [w]i64) =
    -- Two scalar histograms rather than one over (value, index) pairs: the
    -- result, then the lowest index of a value equal to its bin's result
    -- (pairs would be stored, twice the input).
    let ys = if is_max then reduce_by_index (copy dst) R.max R.lowest is vs
             else reduce_by_index (copy dst) R.min R.highest is vs
    let cand = map3 (\i v k -> if i >= 0 && i < w then (if R.(v == ys[i]) then k else n) else n) is vs (iota n)
    let first = reduce_by_index (replicate w n) i64.min n is cand
    in (ys, map3 (\d y k -> if R.(d == y) || k == n then -1 else k) dst ys first)

  def hist_arg_vjp [n] [w] (ks: [w]i64) (ybars: [w]t) (vs: [n]t) : ([w]t, [n]t) =
    let dbar = map2 (\k yb -> if k == -1 then yb else R.i64 0) ks ybars
    let vbar = scatter (map (\_ -> R.i64 0) vs) ks ybars
    in (dbar, vbar)

  def hist_arg_jvp [n] [w] (ks: [w]i64) (ddst: [w]t) (dvs: [n]t) : [w]t =
    map2 (\k dd -> if k == -1 then dd else dvs[k]) ks ddst

  -- reduce with any associative operator (notes-ad.md §3, the generic
  -- rule): with ls the exclusive scan from the left and rs the one from the
  -- right (the operator flipped), element i's adjoint is ybar times the
  -- derivative of ls[i] `op` x `op` rs[i] at x = xs[i]. `pd a b ybar` is
  -- (ybar * d(a op b)/da, ybar * d(a op b)/db), generated from the operator.
  def reduce_generic_vjp [n] (op: t -> t -> t) (pd: t -> t -> t -> (t, t)) (ne: t) (xs: [n]t) (ybar: t) : *[n]t =
    let ls = exscan op ne xs
    let rs = reverse (exscan (\a b -> op b a) ne (reverse xs))
    in map3 (\l a r -> let (d1, _) = pd (op l a) r ybar
                       let (_, d2) = pd l a d1
                       in d2) ls xs rs

  -- The same in forward mode: pairs (x, x') under the operator's jvp
  -- `jl a b a' b' = (a op b, its tangent)`.
  def reduce_generic_jvp [n] (jl: t -> t -> t -> t -> (t, t)) (ne: t) (xs: [n]t) (dxs: [n]t) : t =
    (reduce (\(a, da) (b, db) -> jl a b da db) (ne, R.i64 0) (zip xs dxs)).1

  -- scan with any associative operator (notes-ad.md §3, the generic rule).
  -- With c_i = d(ys[i-1] op xs[i])/d(ys[i-1]) (ys[-1] = ne), the adjoints r
  -- of the scan's results satisfy r_i = ybar_i + c_{i+1} * r_{i+1}: a
  -- backward linear recurrence, solved by a scan over the reversed sequence
  -- of affine maps, composed as (d1, c1) then (d2, c2) = (d2 + c2*d1, c2*c1).
  -- Element i's adjoint is then r_i * d(ys[i-1] op xs[i])/d(xs[i]). `pd a b
  -- s` is (s * d(a op b)/da, s * d(a op b)/db), generated from the operator.
  def scan_generic_vjp [n] (pd: t -> t -> t -> (t, t)) (ne: t) (xs: [n]t) (ys: [n]t) (ybars: [n]t) : *[n]t =
    let prev i = if i == 0 then ne else ys[i - 1]
    let cs = map2 (\i x -> (pd (prev i) x (R.i64 1)).0) (iota n) xs
    let e = map (\k -> let i = n - 1 - k
                       in (ybars[i], if i == n - 1 then R.i64 0 else cs[i + 1])) (iota n)
    let rr = (unzip (scan (\(d1, c1) (d2, c2) -> R.((d2 + c2 * d1, c2 * c1))) (R.i64 0, R.i64 1) e)).0
    in map2 (\i x -> (pd (prev i) x rr[n - 1 - i]).1) (iota n) xs

  -- Helpers of the generic scan rule for tuple operators (ad_sweep_scan.cpp),
  -- one component array at a time: the operands ys[i-1] (ne at 0), and the
  -- reversed sequence of c_{i+1} (0 for the last element).
  def scan_prev [n] (ne: t) (ys: [n]t) : *[n]t = map (\i -> if i == 0 then ne else ys[i - 1]) (iota n)
  def scan_rev_next [n] (cs: [n]t) : *[n]t = map (\k -> if k == 0 then R.i64 0 else cs[n - k]) (iota n)
  def rev [n] (xs: [n]t) : *[n]t = map (\k -> xs[n - 1 - k]) (iota n)

  -- Vectorised reduce_by_index (ad_sweep_vec.cpp): rows of k values into
  -- rows of k bins, as one histogram of scalars over the flattened arrays
  -- (value (i, j) into bin is[i]*k + j; out of bounds stays out).
  def vec_indices [n] (m: i64) (k: i64) (is: [n]i64) : []i64 =
    flatten (map (\i -> map (\j -> if i >= 0 && i < m then i * k + j else -1) (iota k)) is)
  def flat 'a [n] [m] (xss: [n][m]a) : []a = flatten xss
  def unflat 'a [l] (n: i64) (m: i64) (xs: [l]a) : *[n][m]a = map (\i -> map (\j -> xs[i * m + j]) (iota m)) (iota n)

  -- The same in forward mode: a scan of dual pairs under the operator's jvp
  -- `jl a b a' b' = (a op b, its tangent)` (associative as the operator is).
  def scan_generic_jvp [n] (jl: t -> t -> t -> t -> (t, t)) (ne: t) (xs: [n]t) (dxs: [n]t) : *[n]t =
    (unzip (scan (\(a, da) (b, db) -> jl a b da db) (ne, R.i64 0) (zip xs dxs))).1

  -- scatter: the destination's adjoint is ybars with the written positions
  -- zeroed; a value's adjoint is ybars at its index if it is the write that
  -- lands there (the last one, as a sequential scatter has it), else 0.
  def scatter_vjp [n] [k] (is: [k]i64) (ybars: [n]t) : (*[n]t, *[k]t) =
    let last = reduce_by_index (replicate n (-1)) i64.max (-1) is (iota k)
    let dbar = map2 (\yb l -> if l >= 0 then R.i64 0 else yb) ybars last
    let vbar = map2 (\i j -> if i >= 0 && i < n && last[i] == j then ybars[i] else R.i64 0) is (iota k)
    in (dbar, vbar)

  -- reduce_by_index with any associative and commutative operator
  -- (notes-ad.md §3, the generic sort-based rule). The forward sweep keeps
  -- h, each bin's values reduced from ne; the result is map2 op dst h.
  def hist_generic_fwd [n] [w] (op: t -> t -> t) (ne: t) (dst: [w]t) (is: [n]i64) (vs: [n]t) : ([w]t, [w]t) =
    let h = reduce_by_index (replicate w ne) op ne is vs
    in (map2 op dst h, h)

  -- (is, iota n) sorted by index, out-of-bounds indices as bin w: a radix
  -- sort over the ceil(log2(w+1)) significant bits only, each bit a stable
  -- partition by two scans and a scatter.
  def sort_by_bin [n] (w: i64) (is: [n]i64) : ([n]i64, [n]i64) =
    let ks = map (\i -> if i >= 0 && i < w then i else w) is
    let bits = loop b = 0 while b < 63 && (1i64 << i64.i32 b) <= w do b + 1
    in loop (ks, perm) = (ks, iota n) for b < bits do
         let f = map (\k -> (k >> i64.i32 b) & 1) ks
         let nz = i64.sum (map (1 -) f)
         let p0 = scan (+) 0 (map (1 -) f)
         let p1 = scan (+) 0 f
         let idx = map3 (\x a c -> if x == 0 then a - 1 else nz + c - 1) f p0 p1
         in (scatter (replicate n 0) idx ks, scatter (replicate n 0) idx perm)

  -- An exclusive scan within segments (a segment starts where flags[k]).
  def segexscan [n] (op: t -> t -> t) (ne: t) (flags: [n]bool) (xs: [n]t) : [n]t =
    let inc = (unzip (scan (\(f1, v1) (f2, v2) -> (f1 || f2, if f2 then v2 else op v1 v2))
                           (false, ne) (zip flags xs))).1
    in map2 (\k f -> if f then ne else inc[k - 1]) (iota n) flags

  -- The return sweep: dst's adjoint and h's from the operator's partials
  -- (`pd a b s` = (s * d(a op b)/da, s * d(a op b)/db)); then, values sorted
  -- by bin, each one's adjoint is h's adjoint times the derivative of
  -- l op v op r at v, l and r the segmented exclusive scans from the left and
  -- from the right (the operator flipped), scattered back to the input order.
  def hist_generic_vjp [n] [w] (op: t -> t -> t) (pd: t -> t -> t -> (t, t)) (ne: t)
                               (dst: [w]t) (is: [n]i64) (vs: [n]t) (h: [w]t) (ybars: [w]t) : ([w]t, [n]t) =
    let (dbar, hbar) = unzip (map3 pd dst h ybars)
    let (sis, perm) = sort_by_bin w is
    let svs = map (\j -> vs[j]) perm
    let flags = map (\k -> k == 0 || sis[k] != sis[k - 1]) (iota n)
    let ls = segexscan op ne flags svs
    let rflags = map (\k -> k == 0 || sis[n - 1 - k] != sis[n - k]) (iota n)
    let rs = reverse (segexscan (\a b -> op b a) ne rflags (reverse svs))
    let sbar = map4 (\b l v r -> if b < w then (let (d1, _) = pd (op l v) r hbar[b]
                                               let (_, d2) = pd l v d1
                                               in d2)
                                  else R.i64 0) sis ls svs rs
    in (dbar, scatter (replicate n (R.i64 0)) perm sbar)

  -- Forward mode: the histogram of dual pairs under the operator's jvp,
  -- then the destination combined by the same jvp.
  def hist_generic_jvp [n] [w] (jl: t -> t -> t -> t -> (t, t)) (ne: t) (dst: [w]t) (ddst: [w]t)
                               (is: [n]i64) (vs: [n]t) (dvs: [n]t) : [w]t =
    let (h, dh) = unzip (reduce_by_index (replicate w (ne, R.i64 0)) (\(a, da) (b, db) -> jl a b da db)
                                         (ne, R.i64 0) is (zip vs dvs))
    in map4 (\d dd x dx -> (jl d x dd dx).1) dst ddst h dh

  -- A gather `a[i]` inside a mapped function: the adjoints of the gathered
  -- values added into a's adjoint at their indices.
  def gather_vjp [k] (n: i64) (is: [k]i64) (cs: [k]t) : *[n]t =
    reduce_by_index (replicate n (R.i64 0)) (\a b -> R.(a + b)) (R.i64 0) is cs

  -- A sum of adjoint contributions (free variables of a mapped function).
  def sum [n] (xs: [n]t) : t = reduce (\a b -> R.(a + b)) (R.i64 0) xs

  -- The reverse map rule for element functions over arrays (ad_rev.cpp):
  -- adding, zeroing and broadcasting adjoints of rows, and summing the
  -- per-row contributions to a captured array's adjoint over the rows.
  def vadd2 [n] [m] (a: [n][m]t) (b: [n][m]t) : *[n][m]t = map2 (map2 (\x y -> R.(x + y))) a b
  def vadd3 [n] [m] [l] (a: [n][m][l]t) (b: [n][m][l]t) : *[n][m][l]t =
    map2 (map2 (map2 (\x y -> R.(x + y)))) a b
  def zeros1 [n] (_: [n]t) : *[n]t = replicate n (R.i64 0)
  def zeros2 [n] [m] (_: [n][m]t) : *[n][m]t = replicate n (replicate m (R.i64 0))
  def zeros3 [n] [m] [l] (_: [n][m][l]t) : *[n][m][l]t = replicate n (replicate m (replicate l (R.i64 0)))
  def bcast 'a [n] (_: [n]a) (b: t) : *[n]t = replicate n b
  def onehot_like [n] (_: [n]t) (k: i64) (ybar: t) : *[n]t = onehot n k ybar
  -- Column sums: one reduction per column (a map of reductions, which the
  -- planner runs as a segmented reduction), for arrays in memory.
  def sum_rows [n] [m] (xss: [n][m]t) : *[m]t =
    map (\j -> reduce (\a b -> R.(a + b)) (R.i64 0) (map (\i -> xss[i, j]) (iota n))) (iota m)
  -- Inside generated element code, where the rows may be a delayed
  -- computation: a reduction of whole rows computes each row once, where
  -- reading by columns would compute it once per element.
  def sum_rows_v [n] [m] (xss: [n][m]t) : [m]t =
    reduce (map2 (\a b -> R.(a + b))) (replicate m (R.i64 0)) xss
  def sum_rows2 [n] [m] [l] (x: [n][m][l]t) : *[m][l]t =
    map (\j -> map (\k -> reduce (\a b -> R.(a + b)) (R.i64 0) (map (\i -> x[i, j, k]) (iota n))) (iota l)) (iota m)
}

module ad_rules_f64 = ad_rules f64
module ad_rules_f32 = ad_rules f32
