-- Abstract types whose definitions use their size parameters as array
-- sizes, and a size-lifted one with a hidden size returned by a function.
-- ==
-- input { 3 } output { 3i64 4i64 }

module type vecs = {
  type vec [n]
  val mk : (n: i64) -> vec [n]
  val len [n] : vec [n] -> i64
  type~ dict
  val singleton : i32 -> dict
  val size : dict -> i64
}

module impl : vecs = {
  type vec [n] = ([n]i32, i32)
  def mk (n: i64) : vec [n] = (replicate n 0, 1)
  def len [n] (_: vec [n]) = n
  type~ dict = []i32
  def singleton (x: i32) : dict = replicate (i64.i32 x + 1) x
  def size (d: dict) = length d
}

def main (x: i32) = (impl.len (impl.mk (i64.i32 x)), impl.size (impl.singleton x))
