-- Heat diffusion on a 2D grid (written for thorn): a Jacobi stencil with
-- clamped borders, iterated in a sequential loop around a map of maps, as
-- rodinia's hotspot and srad do; then per-row maxima and the total. The
-- stencil reads neighbours through indices computed per element.

def clamp (lo: i64) (hi: i64) (x: i64) = i64.max lo (i64.min hi x)

def step [n][m] (alpha: f32) (g: [n][m]f32) : [n][m]f32 =
  tabulate_2d n m (\i j ->
    let at a b = g[clamp 0 (n - 1) a, clamp 0 (m - 1) b]
    let c = g[i, j]
    in c + alpha * (at (i - 1) j + at (i + 1) j + at i (j - 1) + at i (j + 1) - 4 * c))

-- ==
-- entry: diffuse
-- input { 8i64 10i64 25i64 }
-- output { [14.071236f32, 15.154701f32, 16.879574f32, 18.581709f32, 19.703608f32, 20.05858f32, 19.878494f32, 19.615105f32] 1157.0f32 }
-- input { 33i64 17i64 40i64 }
-- output { [2.0028677f32, 2.0071352f32, 2.02009f32, 2.0498145f32, 2.1123805f32, 2.2327487f32, 2.4488614f32, 2.8102407f32, 3.3718011f32, 4.180524f32, 5.2558184f32, 6.5682373f32, 8.024836f32, 9.47035f32, 10.709725f32, 11.549564f32, 11.847066f32, 11.549564f32, 10.709726f32, 9.470357f32, 8.024852f32, 6.568275f32, 5.255901f32, 4.1806912f32, 3.372115f32, 2.81079f32, 2.4497578f32, 2.234114f32, 2.1143186f32, 2.0523796f32, 2.0226095f32, 2.0094745f32, 2.004661f32] 2120.0002f32 }
entry diffuse (n: i64) (m: i64) (iters: i64) : ([n]f32, f32) =
  let g0 = tabulate_2d n m (\i j -> if i == n / 2 && j == m / 2 then 1000f32 else f32.i64 ((i * 7 + j * 3) % 5))
  let g = loop g = g0 for _i < iters do step 0.2 g
  in (map (\row -> f32.maximum row) g, f32.sum (flatten g))
