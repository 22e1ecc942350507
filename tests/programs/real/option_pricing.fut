-- A small Monte Carlo pricer in the style of finance benchmarks (written
-- for thorn, not ported): per path, a quasi-random draw from a linear
-- congruential generator, normals by Box-Muller, a Brownian path built in a
-- private array updated in place in a loop, the payoff of an Asian call on
-- it, then the mean over paths. A map with inner loops, private arrays and
-- a reduction: each element is one SegMap element, no reference fallback.

def lcg (s: u32) : u32 = s * 1664525 + 1013904223
def uniform (s: u32) : f64 = (f64.u32 (s >> 8) + 0.5) / 16777216.0

-- Two normal draws from two uniforms (Box-Muller).
def normals (u1: f64) (u2: f64) : (f64, f64) =
  let r = f64.sqrt (-2.0 * f64.log u1)
  in (r * f64.cos (2.0 * f64.pi * u2), r * f64.sin (2.0 * f64.pi * u2))

def path (steps: i64) (seed: u32) (s0: f64) (mu: f64) (sigma: f64) (dt: f64) : [steps]f64 =
  let prices = replicate steps s0
  let (prices, _, _) =
    loop (prices, s, x) = (prices, lcg (seed * 2654435761), s0) for t < steps do
      let s1 = lcg s
      let s2 = lcg s1
      let (z, _) = normals (uniform s1) (uniform s2)
      let x' = x * f64.exp ((mu - 0.5 * sigma * sigma) * dt + sigma * f64.sqrt dt * z)
      in (prices with [t] = x', s2, x')
  in prices

def asian_call (strike: f64) (prices: []f64) : f64 =
  f64.max 0 (f64.sum prices / f64.i64 (length prices) - strike)

-- ==
-- entry: price
-- input { 200i64 16i64 100.0 100.0 0.05 0.2 1.0 }
-- output { 6.016741643924226f64 }
-- input { 1000i64 8i64 100.0 110.0 0.05 0.3 0.5 }
-- output { 2.133972259328934f64 }
entry price (paths: i64) (steps: i64) (s0: f64) (strike: f64) (r: f64) (sigma: f64) (t: f64) : f64 =
  let dt = t / f64.i64 steps
  let payoffs = map (\p -> asian_call strike (path steps (u32.i64 p + 1) s0 r sigma dt)) (iota paths)
  in f64.exp (-r * t) * f64.sum payoffs / f64.i64 paths
