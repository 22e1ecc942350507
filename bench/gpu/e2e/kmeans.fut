-- k-means clustering (Lloyd's algorithm), the end-to-end GPU benchmark:
-- each iteration assigns every point to its nearest centre (a map of a
-- reduction over the k centres) and recomputes the centres from per-cluster
-- sums and counts (reduce_by_index). 2.5 million 4-dimensional points are
-- 10^7 elements.
-- ==
-- random input { [2500000][4]f32 }

def k : i64 = 16
def iterations : i32 = 10

def distance [d] (a: [d]f32) (b: [d]f32) : f32 =
  f32.sum (map2 (\x y -> (x - y) * (x - y)) a b)

def nearest [d] (centres: [k][d]f32) (p: [d]f32) : i64 =
  let pick (i1, d1) (i2, d2) =
    if d1 < d2 || (d1 == d2 && i1 < i2) then (i1, d1) else (i2, d2)
  in (reduce pick (-1, f32.inf) (map2 (\i c -> (i, distance p c)) (iota k) centres)).0

def main [n][d] (points: [n][d]f32) : [k][d]f32 =
  loop centres = take k points for _i < iterations do
    let membership = map (nearest centres) points
    let sums = reduce_by_index (replicate k (replicate d 0f32)) (map2 (+))
                               (replicate d 0f32) membership points
    let counts = reduce_by_index (replicate k 0i32) (+) 0 membership (replicate n 1)
    in map2 (\s c -> map (/ f32.i32 (i32.max c 1)) s) sums counts
