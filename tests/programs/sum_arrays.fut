-- Arrays of sum types in flattened code (interp/flatten/sum_columns.hpp):
-- read as columns (a tag and each constructor's payload), written the same
-- way and boxed after the plan. Maps over, producing and capturing arrays
-- of sums used to run on the reference backend ("arrays of sum types or
-- functions"); futhark-lang.org's ray tracer keeps its scene and its
-- random keys in such arrays.
type key = #key u32
type shape = #circle f64 | #rect f64 f64 | #none

def area (s: shape) : f64 =
  match s
  case #circle r -> 3 * r * r
  case #rect w h -> w * h
  case #none -> 0

def kind (s: shape) : i32 =
  match s
  case #circle _ -> 0
  case #rect _ _ -> 1
  case #none -> 2

def mk (i: i64) : shape =
  if i % 3 == 0 then #circle (f64.i64 i)
  else if i % 3 == 1 then #rect (f64.i64 i) 2
  else #none

-- ==
-- entry: areas
-- input { 5i64 } output { [0.0, 2.0, 0.0, 27.0, 8.0] }
entry areas (n: i64) = map area (map mk (iota n))

-- An array of sums as the result of a plan, then as the input of another.
-- ==
-- entry: shapes_of
-- input { 4i64 } output { [0i32, 1i32, 2i32, 0i32] }
entry shapes_of (n: i64) = let ss = map mk (iota n) in map kind ss

-- ==
-- entry: keys
-- input { 2i64 } output { [[1u32, 2u32], [3u32, 4u32]] }
entry keys (n: i64) =
  let ks : [n][2]key = tabulate_2d n 2 (\i j -> #key (u32.i64 (i * 2 + j)))
  in map (map (\(#key k) -> k + 1)) ks

-- ==
-- entry: pairs
-- input { 3i64 } output { [0i64, 1i64, 2i64] [0.0, 2.0, 0.0] [0.0, 1.0, 2.0] }
entry pairs (n: i64) =
  let ps = map (\i -> (i, mk i, f64.i64 i)) (iota n)
  in (map (.0) ps, map (\p -> area p.1) ps, map (.2) ps)

-- A captured array of sums, read by every element.
-- ==
-- entry: scene
-- input { [1.0, 2.0] } output { [9.75, 19.5] }
entry scene (xs: []f64) =
  let objs = [#circle 1.0, #rect 2.0 3.0, #none, #circle 0.5]
  in map (\x -> f64.sum (map (\s -> area s * x) objs)) xs

-- ==
-- entry: nested
-- input { 4i64 } output { [0.0, 3.0, 2.0, 30.0] }
entry nested (n: i64) =
  let objs : [](shape, key) = map (\i -> (mk i, #key (u32.i64 i))) (iota n)
  in map (\(s, k: key) -> let (#key k) = k in area s + f64.u32 k) objs

-- ==
-- entry: local_sums
-- input { 3i64 } output { [29.0, 37.0, 35.0] }
entry local_sums (n: i64) =
  map (\i -> let ss = map mk (map (+ i) (iota 4))
             in loop acc = 0.0 for s in ss do acc + area s)
      (iota n)

-- ==
-- entry: table
-- input { [0i64, 1i64, 2i64, 6i64] } output { [0.0, 3.0, -1.0, 6.0] }
entry table (xs: []i64) =
  let tbl = map mk (iota 7)
  in map (\x -> match tbl[x]
                case #circle r -> r
                case #rect a b -> a + b
                case #none -> -1)
         xs

-- A narrow map whose lets bind a sum: distributed, one map per let, the
-- sums between them an array of sums.
-- ==
-- entry: distributed
-- input { 5i64 } output { [0.0, 9900.0, 0.0, 133650.0, 39600.0] }
entry distributed (n: i64) =
  map (\x -> let s = mk x
             let y = map (\j -> area s * f64.i64 j) (iota 100)
             in f64.sum y)
      (iota n)
