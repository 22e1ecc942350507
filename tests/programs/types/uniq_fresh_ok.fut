-- Accepted: tabulate's result is fresh even when the lambda returns a
-- global (through a functor), direct calls of unique-returning functions,
-- pipelines through closures of locals, consuming a fresh map result.
-- ==
-- input { 2i64 } output { [[9i64, 2i64], [1i64, 2i64]] [0i32, 3i32, 4i32] 5i32 }

module type monoid = {type t val ne : t}

module mk (M: monoid) = {
  def f n = tabulate n (\_ -> M.ne)
}

module vecs = {type t = [2]i64 def ne : [2]i64 = [1, 2]}

module s = mk vecs

def glob : [3]i32 = [1, 2, 3]

def addto (a: [3]i32) (b: [3]i32) : *[3]i32 = map2 (+) a b

def main (n: i64) =
  let arr = s.f n
  let arr' = arr with [0, 0] = 9
  let ys = addto glob [1, 1, 1]
  let ys' = ys with [0] = 0
  let zs = [1i32, 2] |> map (\x -> x + glob[0])
  let zs' = zs with [0] = 5
  in (arr', ys', zs'[0])
