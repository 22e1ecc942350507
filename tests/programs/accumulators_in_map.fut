-- Accumulators (intrinsics.scatter_stream, hist_stream, acc_write) inside
-- mapped functions run as sequential loops in each element, the
-- accumulator carried as loop state (CFAL-bench flash attention copies
-- tiles this way). Before, every such map ran on the reference backend.
type~ acc 't = intrinsics.acc t

def scatter_stream [k] 'a 'b (dest: *[k]a) (f: *acc ([k]a) -> b -> acc ([k]a)) (bs: []b) : *[k]a =
  intrinsics.scatter_stream dest f bs :> *[k]a

def reduce_by_index_stream [k] 'a 'b (dest: *[k]a) (op: a -> a -> a) (ne: a) (f: *acc ([k]a) -> b -> acc ([k]a)) (bs: []b) : *[k]a =
  intrinsics.hist_stream dest op ne f bs :> *[k]a

def write [n] 't (acc: *acc ([n]t)) (i: i64) (v: t) : *acc ([n]t) =
  intrinsics.acc_write acc i v

-- ==
-- entry: tiles
-- input { [[1f32, 2f32, 3f32, 4f32, 5f32, 6f32, 7f32, 8f32], [8f32, 7f32, 6f32, 5f32, 4f32, 3f32, 2f32, 1f32]] }
-- output { [[0f32, 1f32, 2f32, 3f32, 4f32, 5f32, 6f32, 7f32, 8f32, 0f32], [0f32, 8f32, 7f32, 6f32, 5f32, 4f32, 3f32, 2f32, 1f32, 0f32]] }

-- Each row copies its values into a padded tile, two per b, with a loop
-- carrying the accumulator; out-of-bounds writes are ignored.
entry tiles (xss: [][8]f32) : [][10]f32 =
  map (\xs ->
         let f (acc: *acc ([10]f32)) (b: i64) =
           loop acc for j < 2 do write acc (b * 2 + j + 1) xs[b * 2 + j]
         in scatter_stream (replicate 10 0f32) f (iota 4))
      xss

-- ==
-- entry: hists
-- input { [[1, 2, 3, 4, 5, 6], [0, 0, 0, 0, 0, 10]] }
-- output { [[7i32, 9i32, 11i32], [2i32, 2i32, 12i32]] }

-- A histogram per row: each b adds to two bins.
entry hists (xss: [][6]i32) : [][3]i32 =
  map (\xs ->
         let f (acc: *acc ([3]i32)) (b: i64) =
           let acc = write acc (b % 3) xs[b]
           in write acc ((b + 1) % 3) 1
         in reduce_by_index_stream (replicate 3 0) (+) 0 f (iota 6))
      xss
