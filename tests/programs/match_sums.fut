-- Sum types and pattern matching: constructors with payloads, literals,
-- tuples, records and wildcards in patterns.
-- ==
-- entry: shape_area
-- input { 0 2.0 } output { 12.0 }
-- input { 1 3.0 } output { 9.0 }
-- input { 2 3.0 } output { 0.0 }

-- ==
-- entry: classify_all
-- input { [0, -1, 5, 100] } output { [0, 1, 2, 3] }

-- ==
-- entry: opt
-- input { 3 } output { 6 }
-- input { -3 } output { -1 }

-- ==
-- entry: nested
-- input { 1 2 } output { 3 }
-- input { 0 2 } output { 2 }

type shape = #circle f64 | #square f64 | #point
type option 'a = #none | #some a

def area (s: shape): f64 =
  match s
  case #circle r -> 3.0 * r * r
  case #square s -> s * s
  case #point -> 0.0

def mk (k: i32) (x: f64): shape =
  if k == 0 then #circle x else if k == 1 then #square x else #point

def classify (x: i32): i32 =
  match x
  case 0 -> 0
  case -1 -> 1
  case 100 -> 3
  case _ -> 2

def halve_pos (x: i32): option i32 = if x > 0 then #some (x * 2) else #none

entry shape_area (k: i32) (x: f64) = area (mk k x)
entry classify_all (xs: []i32) = map classify xs
entry opt (x: i32) = match halve_pos x case #some y -> y case #none -> -1
entry nested (a: i32) (b: i32) =
  match ({x = a, y = (b, #some b)} : {x: i32, y: (i32, option i32)})
  case {x = 0, y = (b', _)} -> b'
  case {x, y = (_, #some z)} -> x + z
  case {x, y = (_, #none)} -> x
