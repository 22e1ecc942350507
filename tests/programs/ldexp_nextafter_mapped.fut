-- ldexp and nextafter inside mapped functions (flattened; they ran on the
-- reference backend), f16 stepping its own bits.

-- ==
-- entry: ldexps
-- input { [1f32, -3f32, 0.75f32, 1f32, 2f32] [3, 2, -2, 200, -200] }
-- output { [8f32, -12f32, 0.1875f32, f32.inf, 0f32] [8f64, -12f64, 0.1875f64, 1.6069380442589903e60f64, 6.223015277861142e-61f64] }
entry ldexps (xs: []f32) (es: []i32) =
  (map2 f32.ldexp xs es, map2 (\x e -> f64.ldexp (f64.f32 x) e) xs es)

-- ==
-- entry: nextafters
-- input { [0f32, 1f32, -1f32, 1f32] [1f32, 2f32, -2f32, 1f32] }
-- output { [1.0e-45f32, 1.0000001f32, -1.0000001f32, 1f32]
--          [4.9e-324f64, 1.0000000000000002f64, -1.0000000000000002f64, 1f64] }
entry nextafters (xs: []f32) (ys: []f32) =
  (map2 f32.nextafter xs ys, map2 (\x y -> f64.nextafter (f64.f32 x) (f64.f32 y)) xs ys)

-- ==
-- entry: nextafters_f16
-- input { [0f16, 0f16, 1f16, 1f16, -1f16, 2f16] [1f16, -1f16, 2f16, 0f16, -2f16, 2f16] }
-- output { [5.96e-8f16, -5.96e-8f16, 1.001f16, 0.9995f16, -1.001f16, 2f16] }
entry nextafters_f16 (xs: []f16) (ys: []f16) = map2 f16.nextafter xs ys
