-- A global whose type is abstract (a sealed module's type, parametric and
-- lifted ones included) carries no aliases, as in Futhark's observeVar:
-- a function may return it, or a value computed from it, without copying.
-- ==
-- input { 3i64 } output { [3i64, 4i64, 5i64] 7i64 }

module type store = {
  type~ state
  type^ gen [n] 'a
  val init : i64 -> state
  val get : state -> i64 -> []i64
  val ints : gen [1] i64
  val run [n] 'a : gen [n] a -> i64 -> a
}

module store : store = {
  type~ state = {xs: []i64}
  type^ gen [n] 'a = {size: [0][n](), f: i64 -> a}
  def init n = {xs = iota n}
  def get (s: state) (k: i64) = map (+ k) s.xs
  def ints : gen [1] i64 = {size = [] : [0][1](), f = \i -> i + 4}
  def run [n] 'a (g: gen [n] a) (i: i64) = g.f i
}

def st = store.init 3

-- The result aliases `st` only through the abstract `state`.
def shifted (k: i64) = store.get st k

-- Returns the global generator itself.
def pick (_: i64) = store.ints

def main (k: i64) = (shifted k, store.run (pick k) 3)
