-- Transcendental functions inside mapped functions. On the GPU they come
-- from CUDA's maths library, on the host from glibc: CUDA documents errors
-- of a few ulp, so results may differ in the last bits (docs/gpu.md, "Float
-- results"). Under `thorn test --backend gpu --validate` with thresholds 0
-- (tests/gpu/run_on_device.sh) every value is compared with the reference
-- within the validation tolerance, NaNs as NaNs; the outputs below are
-- compared within futhark test's tolerance.
-- ==
-- entry: maths32
-- input { [0f32, -1f32, 0.5f32, 3.25f32, -0f32, 100f32, 1e-30f32, -7.5f32] }
-- output { [0f32, -0.84147096f32, 0.47942555f32, -0.10819513f32, -0f32, -0.50636566f32, 1e-30f32, -0.938f32]
--          [1f32, 0.36787945f32, 1.6487212f32, 25.79034f32, 1f32, f32.inf, 1f32, 5.5308437e-4f32]
--          [f32.nan, f32.nan, -0.6931472f32, 1.178655f32, f32.nan, 4.6051702f32, -69.07755f32, f32.nan]
--          [0f32, f32.nan, 0.35355338f32, 5.859169f32, 0f32, 1000f32, 0f32, f32.nan]
--          [0f32, -0.7615942f32, 0.46211717f32, 0.9970101f32, -0f32, 1f32, 1e-30f32, -0.99999964f32] }
-- random input { [100000]f32 }
entry maths32 (xs: []f32) =
  ( map f32.sin xs
  , map f32.exp xs
  , map (\x -> if x > 0 then f32.log x else f32.nan) xs
  , map (\x -> x ** 1.5f32) xs
  , map f32.tanh xs )

-- ==
-- entry: maths64
-- input { [0f64, -1f64, 0.5f64, 3.25f64, 100f64, -7.5f64] }
-- output { [1f64, 0.5403023058681398f64, 0.8775825618903728f64, -0.9941296760805463f64, 0.8623188722876839f64, 0.3466353178350258f64]
--          [-f64.inf, f64.nan, -0.6931471805599453f64, 1.1786549963416462f64, 4.605170185988092f64, f64.nan]
--          [f64.inf, f64.nan, 1.772453850905516f64, 2.5492569667185294f64, 9.332621544394415e155f64, 2.238493288596895e-4f64]
--          [0f64, -1f64, 0.5f64, 3.25f64, 100f64, -7.5f64] }
-- random input { [100000]f64 }
entry maths64 (xs: []f64) =
  ( map f64.cos xs
  , map f64.log xs
  , map f64.gamma xs
  , map (\x -> f64.atan2 (f64.sin x) (f64.cos x) + f64.round (x / (2 * f64.pi)) * 2 * f64.pi) xs )
