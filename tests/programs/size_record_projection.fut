-- A size may be a field of a record parameter (`[s.0]`), or an expression
-- with no normal form (`[n / 2]`): an empty array of that type gets the
-- computed size, also through a functor and a type abbreviation.
-- ==
-- input { 3i64 4i64 } output { 3i64 4i64 0i64 1i64 5i64 4i64 }

module fraction = {
  type t = (i64, i64)
  def sub (a, b) (c, d) : t = (a * d - b * c, b * d)
  def zero : t = (0, 1)
}

module SI (_v: {}) = {
  type unit [s] [s_d] = [0][s][s_d]()
  def unit (s: fraction.t) : unit [s.0] [s.1] = []
  def div [s0] [s_d0] [s1] [s_d1] (_: unit [s0] [s_d0]) (_: unit [s1] [s_d1]) =
    unit (fraction.sub (s0, s_d0) (s1, s_d1))
  def m = unit fraction.zero
}

module M = SI {}

def field (r: {a: i64}) : [0][r.a]bool = []
def half (n: i64) : [0][n / 2]i32 = []

def main (a: i64) (b: i64) =
  let [x][y] (_: [0][x][y]()) = M.unit (a, b)
  let [p][q] (_: [0][p][q]()) = M.div M.m M.m
  let [r] (_: [0][r]bool) = field {a = a + 2}
  let [h] (_: [0][h]i32) = half (2 * b)
  in (x, y, p, q, r, h)
