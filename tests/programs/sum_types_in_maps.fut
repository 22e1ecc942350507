-- Sum types and match inside mapped functions: flattened, not sent to the
-- reference backend (interp/flatten/lower_match.cpp).
type shape = #circle f32 | #rect f32 f32 | #none

def area (s: shape) : f32 =
  match s
  case #circle r -> 3.0 * r * r
  case #rect w h -> w * h
  case #none -> 0

-- Integer literal patterns in an element.
-- ==
-- entry: lits
-- input { [0, 1, 2, 3, -1] } output { [10, 20, 30, 30, 40] }
entry lits (xs: []i32) : []i32 =
  map (\x -> match x case 0 -> 10 case 1 -> 20 case -1 -> 40 case _ -> 30) xs

-- A captured sum: the plan picks the case.
-- ==
-- entry: captured
-- input { 1 [1f32, 2f32] } output { [3f32, 12f32] }
-- input { 2 [1f32, 2f32] } output { [2f32, 8f32] }
-- input { 3 [1f32, 2f32] } output { [0f32, 0f32] }
entry captured (k: i32) (xs: []f32) : []f32 =
  let s : shape = if k == 1 then #circle 1 else if k == 2 then #rect 2 1 else #none
  in map (\x -> x * x * area s) xs

-- Sums built per element, matched in the element.
-- ==
-- entry: per_element
-- input { [0f32, 1f32, 2f32, 3f32] } output { [0f32, 3f32, 8f32, 0f32] }
entry per_element (xs: []f32) : []f32 =
  map (\x -> let s : shape = if x == 1 then #circle x else if x == 2 then #rect x (x * 2) else #none
             in area s) xs

-- Tuples of literals and a record capture holding a sum.
type conf = {mode: shape, k: i32}
-- ==
-- entry: tuples
-- input { [1, 2, 3] [1, 0, 1] } output { [1f32, 2f32, 3f32] }
entry tuples (xs: []i32) (ys: []i32) : []f32 =
  let c : conf = {mode = #rect 1 1, k = 1}
  in map2 (\x y -> match (x, y)
                   case (1, 1) -> area c.mode
                   case (_, 0) -> f32.i32 c.k * 2
                   case _ -> f32.i32 x) xs ys
