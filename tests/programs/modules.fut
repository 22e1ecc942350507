-- The module language: structures, nesting, open, local, qualified
-- operators, module types with ascription, parametric modules applied to
-- several arguments, and local opens `M.(e)`.
-- ==
-- entry: main
-- input { [3, 1, 2] } output { [1, 2, 3] 6 3 42 84 12 7 }

-- ==
-- entry: floats
-- input { [1.5, -2.0, 0.5] } output { [1.5, 0.5, -2.0] 1.5 }

module type ordered = {
  type t
  val lte: t -> t -> bool
}

module type monoid = {
  type t
  val op: t -> t -> t
  val ne: t
}

module insertion_sort (O: ordered) = {
  def sort [n] (xs: [n]O.t): [n]O.t =
    loop xs = copy xs for i in 1..<n do
      let (xs, _) =
        loop (xs, j) = (xs, i) while j > 0 && !(O.lte xs[j - 1] xs[j]) do
          let a = copy xs[j - 1]
          let b = copy xs[j]
          in (xs with [j - 1] = b with [j] = a, j - 1)
      in xs
}

module fold (M: monoid) = {
  def fold [n] (xs: [n]M.t): M.t = reduce M.op M.ne xs
}

module pair_fold (A: monoid) (B: monoid) = {
  def both [n] (xs: [n]A.t) (ys: [n]B.t): (A.t, B.t) = (reduce A.op A.ne xs, reduce B.op B.ne ys)
}

module ints = insertion_sort { type t = i32 def lte (x: i32) (y: i32) = x <= y }
module desc = insertion_sort { type t = f64 def lte (x: f64) (y: f64) = x >= y }
module sum : monoid with t = i32 = { type t = i32 def op (x: i32) (y: i32) = x + y def ne = 0i32 }
module fmax = { type t = f64 def op = f64.max def ne = f64.lowest }
module fsum = fold sum
module both = pair_fold sum fmax

module outer = {
  module inner = { def answer = 42i32 }
  local def hidden = 2i32
  def doubled = inner.answer * hidden
}

module opened = {
  open outer
  def tripled = inner.answer * 3
}

def (<+>) (a: i32) (b: i32) = a * 10 + b

entry main (xs: []i32) =
  (ints.sort xs, fsum.fold xs, i32.maximum xs, outer.inner.answer, outer.doubled, 1 <+> 2,
   i32.(3 + 4))

entry floats (xs: []f64) = (desc.sort xs, (both.both [1i32, 2, 3] xs).1)
