-- Reductions and scans whose elements hold sums, and replicate of a sum:
-- each value laid out as a tag and every constructor's payload. The
-- neutral element, the elements and the operator's results may each hold
-- other constructors (Futhark's sumtypes/sumtype27, enums/enum16 ran on
-- the reference).

type opt 'a = #some a | #none

-- The last #some, or #none.
def last_some (x: opt i32) (y: opt i32) : opt i32 =
  match y
  case #some _ -> y
  case #none -> x

def get (d: i32) (x: opt i32) : i32 =
  match x
  case #some v -> v
  case #none -> d

-- ==
-- entry: last_positive
-- input { [0, -1, 3, 4, -2, 7, -9] }
-- output { 7 }
-- input { [-1, -2] }
-- output { -1 }
entry last_positive (xs: []i32) =
  get (-1) (reduce last_some #none (map (\x -> if x > 0 then #some x else #none) xs))

-- ==
-- entry: running_last
-- input { [0, -1, 3, 4, -2, 7, -9] }
-- output { [-1, -1, 3, 4, 4, 7, 7] }
entry running_last (xs: []i32) =
  map (get (-1)) (scan last_some #none (map (\x -> if x > 0 then #some x else #none) xs))

-- A sum beside a count: the operator builds a constructor (#many) that
-- neither the neutral element nor any element holds.
type seen = #nothing | #one i64 | #many

def merge ((a, na): (seen, i64)) ((b, nb): (seen, i64)) : (seen, i64) =
  let s = match (a, b)
          case (#nothing, _) -> b
          case (_, #nothing) -> a
          case _ -> #many
  in (s, na + nb)

def code (s: seen) : i64 =
  match s
  case #nothing -> 0
  case #one x -> 100 + x
  case #many -> -1

-- ==
-- entry: distinct
-- input { [0i64, 0, 5, 0] }
-- output { 102i64 4i64 }
-- input { [0i64, 3, 5, 0] }
-- output { -1i64 4i64 }
-- input { [0i64, 0] }
-- output { 0i64 2i64 }
entry distinct (xs: []i64) =
  let (s, n) = reduce merge (#nothing, 0) (map2 (\i x -> ((if x == 0 then #nothing else #one i), 1)) (indices xs) xs)
  in (code s, n)

-- ==
-- entry: swapped
-- input { 1000i64 }
-- output { 1000i64 1000i64 }
type foobar = #foo | #bar

entry swapped (n: i64) =
  let xs = replicate n #foo ++ replicate n (#bar : foobar)
  let ys = map (\x : foobar -> match x case #foo -> #bar case #bar -> #foo) xs
  in (i64.sum (map (\y -> match y case #foo -> 0 case #bar -> 1) ys[:n]),
      i64.sum (map (\y -> match y case #foo -> 1 case #bar -> 0) ys[n:]))
