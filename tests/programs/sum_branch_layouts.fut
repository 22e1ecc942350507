-- An if whose branches build one sum type with different constructors
-- known: one from a captured value (a sum holding only its own
-- constructor), one from a constructor (all of its type's). Inside a
-- mapped function both take one layout. Sizes hidden in a record type
-- abbreviation (`perlin [n]`) are bound from the checked type.
-- athas/raytracingthenextweekinfuthark does both in every pixel.

type material = #metal f64 | #glass f32
type hit = #hit (f64, material) | #miss

type perlin [n] = {ranvec: [n]f64, perm: [n]i64}

def noise [n] ({ranvec, perm}: perlin [n]) (x: i64) : f64 =
  ranvec[perm[x % n]] * f64.i64 n

def shade (m: material) (i: i64) : f64 =
  let r : hit = if i % 2 == 0 then #hit (f64.i64 i, m) else #miss
  in match r
     case #hit (t, #metal f) -> t * f
     case #hit (t, #glass g) -> t + f64.f32 g
     case #miss -> -1

-- ==
-- entry: shades
-- input { 6i64 } output { [0.0, -1.0, 1.0, -1.0, 2.0, -1.0] [0.25, -1.0, 2.25, -1.0, 4.25, -1.0] }
entry shades (k: i64) =
  (map (shade (#metal 0.5)) (iota k), map (shade (#glass 0.25)) (iota k))

-- ==
-- entry: noises
-- input { [1.0, 2.0, 3.0] [2i64, 0i64, 1i64] }
-- output { [9.0, 3.0, 6.0, 9.0, 3.0, 6.0, 9.0] }
entry noises [n] (ranvec: [n]f64) (perm: [n]i64) =
  let p : perlin [n] = {ranvec, perm}
  in map (noise p) (iota 7)
