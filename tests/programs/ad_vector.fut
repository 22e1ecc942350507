-- Vector AD (jmp, mjp, jmp2, mjp2): many seeds, the primal run once (the
-- array-level sweep with one return sweep per seed; on the reference tape
-- one recording swept per seed, forward mode pushing each seed's tangent
-- through the recorded partials). On the host backend with --validate each
-- seed's result is compared with the reference tape.

-- ==
-- entry: square_jacobian
-- input { [1.0, 2.0, 3.0] }
-- output { [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]] [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]] 14.0 [1.0, 4.0, 9.0] }
entry square_jacobian (xs: []f64) =
  let n = length xs
  let eye = tabulate_2d n n (\i j -> if i == j then 1 else 0)
  let f = map (\x -> x * x)
  let (y, m) = mjp2 f xs eye
  let (y', _) = jmp2 f xs eye
  in (jmp f xs eye, m, f64.sum y, y')

-- A gradient and directional derivatives of a least-squares loss.
-- ==
-- entry: lsq
-- input { [1.0, 2.0] [3.0, 5.0] } output { [[-16.0, -26.0], [0.0, 0.0], [-32.0, -52.0]] [-16.0, -26.0, -42.0] }
entry lsq (xs: []f64) (ys: []f64) =
  let loss (a: f64, b: f64) = f64.sum (map2 (\x y -> let r = a + b * x - y in r * r) xs ys)
  let g = mjp loss (0.0, 0.0) [1.0, 0.0, 2.0]
  let h = jmp loss (0.0, 0.0) [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
  in (map (\(a, b) -> [a, b]) g, h)

-- No seeds: an empty result.
-- ==
-- entry: no_seeds
-- input { [1.0, 2.0] } output { 0i64 0i64 }
entry no_seeds (xs: []f64) =
  let f = map (\x -> x * 3)
  in (length (mjp f xs []), length (jmp f xs []))

-- A section over a value that carries a derivative (`map (* c) xs`), a
-- Jacobian by mjp (Futhark's ad/map2.fut and reducemul4.fut).
-- ==
-- entry: section
-- input { 2.0 [1.0, 2.0, 3.0] } output { [1.0, 2.0, 3.0] [1.0, 2.0, 3.0] }
entry section (c: f64) (xs: []f64) =
  let f c = map (* c) xs
  let n = length xs
  in (jvp f c 1, mjp f c (tabulate_2d n n (\i j -> if i == j then 1 else 0)))

-- reduce (*) then a section: the full Jacobian both ways.
-- ==
-- entry: mul_section
-- input { [1f32, 2f32, 3f32, 4f32] }
-- output { [[48f32, 12f32, 8f32, 6f32], [48f32, 48f32, 16f32, 12f32], [72f32, 36f32, 48f32, 18f32], [96f32, 48f32, 32f32, 48f32]] true }
entry mul_section [n] (as: [n]f32) =
  let fun (as: [n]f32) = let x = reduce (*) 1 as in map (* x) as
  let seeds = tabulate n (\i -> replicate n 0 with [i] = 1)
  let r = mjp fun as seeds
  let f = jmp fun as seeds |> transpose
  in (r, and (map2 (\a b -> and (map2 (==) a b)) r f))

-- Futhark's rules that differ between the modes (iota's length has an
-- adjoint but a zero tangent; a bit cast has a tangent but no adjoint):
-- jmp agrees with jvp, mjp with vjp.
-- ==
-- entry: mode_rules
-- input { 5i64 2f32 } output { [0i64, 0i64] [5i64, 10i64] [1065353216i32] }
entry mode_rules (n: i64) (x: f32) =
  let f n = i64.sum (iota n)
  in (jmp f n [1, 2], mjp f n [1, 2], jmp (\x -> i32.u32 (f32.to_bits x)) x [1])

-- Sections over an active value on both sides, reverse and forward, with
-- the section bound to a name first.
-- ==
-- entry: sections
-- input { 2.0 [1.0, 2.0, 3.0] } output { 6.0 -4.0 12.0 -3.0 }
entry sections (c: f64) (xs: []f64) =
  let f c = f64.sum (map (c *) xs) + f64.sum (map (\x -> x * x) (map (c -) xs))
  let g c = let h = (/ c) in f64.sum (map h xs)
  in (vjp f c 1, jvp f c 1 - vjp f c 1 - 4, vjp g c (-4) / 1 * 2 / 1, jvp g c 2)
