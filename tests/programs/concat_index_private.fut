-- Indexing a concatenation inside a mapped function whose arrays are
-- private to each element (pbbs maximalIndependentSet): the side of `++`
-- not indexed must not be read, and an out-of-bounds read there failed
-- ("internal error: index -3 out of bounds for private array").
-- ==
-- input { [0, 2, 4, 6] [1, 2, 3, 0, 2, 1, 3, 0] }
-- output { [1i64, 0i64, 1i64, 0i64] }

def edges_of (verts: []i32) (n: i64) (v: i64) : i64 =
  let extended = verts ++ [i32.i64 n]
  in i64.i32 (extended[v + 1] - extended[v])

def pick [n] [m] (verts: [n]i32) (edges: [m]i32) (flags: [n]i64) (v: i64) : i64 =
  if flags[v] == 0 then 0
  else let start = i64.i32 verts[v]
       let es = edges[start:start + edges_of verts m v]
       in if i32.sum (map (\e -> i32.i64 flags[e]) es) == 2 then 1 else 0

def main [n] [m] (verts: [n]i32) (edges: [m]i32) =
  let flags = map (\i -> if i % 2 == 0 then 1 else 0) (iota n) |> map (+ 0)
  let flags = map2 (\f i -> if i == 1 then 1 else f) flags (iota n)
  in map (pick verts edges flags) (iota n)
