-- A unique result specified by the module type: a function declaring one
-- matches, and so does one whose result type is inferred.
-- ==
-- input { [1, 2] } output { [1, 2] [2, 3] }

module type mt = {
  val f [n] : [n]i32 -> *[n]i32
  val g [n] : [n]i32 -> *[n]i32
}
module m : mt = {
  def f [n] (ns: [n]i32) : *[n]i32 = copy ns
  def g [n] (ns: [n]i32) = map (+ 1) ns
}

def main (xs: []i32) = (m.f xs, m.g xs)
