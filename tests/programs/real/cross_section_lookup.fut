-- Cross-section lookups in the style of Monte Carlo transport codes
-- (written for thorn, not ported): a configuration record holding a sum
-- (the search strategy) is passed to the function each lookup calls; each
-- lookup draws an energy from a linear congruential generator, then loops
-- over the nuclides of its material (a trip count per element), finding
-- each nuclide's grid interval by binary search over an array of records.
-- With few lookups the map is narrower than the machine and is
-- distributed; the sum must stay a value bound once, not become an array
-- of sums (which would fall back to the reference backend).
-- ==
-- input { 5i64 0i64 }
-- output { [10.887392588326978f64, 4.132403424209783f64, 9.037642899845682f64, 9.510299616098411f64, 2.1325640681417957f64] 35.700302596622656f64 }
-- input { 5i64 1i64 }
-- output { [10.887392588326978f64, 4.132403424209783f64, 9.037642899845682f64, 9.510299616098411f64, 2.1325640681417957f64] 35.700302596622656f64 }
-- input { 3000i64 1i64 }
-- output { [10.887392588326978f64, 4.132403424209783f64, 9.037642899845682f64, 9.510299616098411f64, 2.1325640681417957f64] 18010.962665227515f64 }

type point = {energy: f64, xs: f64}
type search = #binary | #linear
type config = {search: search, materials: i64}

def lcg (s: u64) : u64 = s * 6364136223846793005 + 1442695040888963407
def uniform (s: u64) : f64 = f64.u64 (s >> 11) / 9007199254740992.0

def find [n] (how: search) (grid: [n]point) (e: f64) : i64 =
  match how
  case #binary ->
    (.0) <| loop (lo, hi) = (0, n - 1) for _i < 64 - i64.clz n do
      let mid = lo + (hi - lo) / 2
      in if grid[mid].energy > e then (lo, mid) else (mid, hi)
  case #linear ->
    (.0) <| loop (i, go) = (0, true) for j < n - 1 do
      if go && grid[j + 1].energy <= e then (j + 1, true) else (i, false)

def micro [n] (how: search) (grid: [n]point) (e: f64) : f64 =
  let i = i64.min (find how grid e) (n - 2)
  let (a, b) = (grid[i], grid[i + 1])
  let f = (e - a.energy) / (b.energy - a.energy)
  in a.xs + f * (b.xs - a.xs)

def macro [k] [n] (cfg: config) (grids: [k][n]point) (nucs: []i64) (e: f64) : f64 =
  loop acc = 0 for j < length nucs do
    acc + micro cfg.search grids[nucs[j]] e

entry main (lookups: i64) (strategy: i64) : ([]f64, f64) =
  let grids = tabulate_2d 4 8 (\g i -> {energy = f64.i64 i, xs = f64.i64 ((g + 1) * (i + 3) % 7)})
  let cfg = {search = if strategy == 0 then #binary else #linear, materials = 3}
  let materials = [[0, 1, 0], [2, 3, 1], [3, 0, 0]]
  let counts = [2i64, 3, 1]
  let per_lookup i =
    let s = lcg (u64.i64 (i + 1))
    let e = 7.0 * uniform s
    let m = i64.u64 (lcg s >> 33) % cfg.materials
    let nucs = take counts[m] materials[m]
    in macro cfg grids nucs e
  let xs = tabulate lookups per_lookup
  in (take 5 xs, f64.sum xs)
