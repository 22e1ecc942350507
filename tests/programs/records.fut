-- Records and tuples: construction, projection, field punning, updates,
-- record patterns, equality.
-- ==
-- entry: main
-- input { 1 2 } output { 3 10 2 1 true 7 }

type point = {x: i32, y: i32}

def swap (p: point): point = {x = p.y, y = p.x}
def norm1 ({x, y}: point) = i32.abs x + i32.abs y

entry main (a: i32) (b: i32) =
  let p = {x = a, y = b}
  let q = p with x = 10
  let t = (a, (b, true))
  let r = swap p
  in (norm1 p, q.x, r.x, r.y, t.1.1 && p == swap r, (.x) {x = 7, y = 0})
