-- | Second-order array combinators. Each is an intrinsic that the
-- evaluator hands to the dispatcher (interp/exec/dispatch.hpp), which runs it
-- on the reference, host or GPU backend.

-- | Apply the given function to each element of an array.
def map 'a [n] 'x (f: a -> x) (as: [n]a): *[n]x =
  __intrinsic "map" f as

-- | Apply the given function to each element of a single array.
def map1 'a [n] 'x (f: a -> x) (as: [n]a): *[n]x =
  __intrinsic "map" f as

-- | As `map1`, but with one more array.
def map2 'a 'b [n] 'x (f: a -> b -> x) (as: [n]a) (bs: [n]b): *[n]x =
  __intrinsic "map" f as bs

def map3 'a 'b 'c [n] 'x (f: a -> b -> c -> x) (as: [n]a) (bs: [n]b) (cs: [n]c): *[n]x =
  __intrinsic "map" f as bs cs

def map4 'a 'b 'c 'd [n] 'x (f: a -> b -> c -> d -> x) (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d): *[n]x =
  __intrinsic "map" f as bs cs ds

def map5 'a 'b 'c 'd 'e [n] 'x (f: a -> b -> c -> d -> e -> x) (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) (es: [n]e): *[n]x =
  __intrinsic "map" f as bs cs ds es

-- | Reduce the array `as` with `op`, with `ne` as the neutral element for
-- `op`, which must be associative.
def reduce [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a): a =
  __intrinsic "reduce" op ne as

-- | As `reduce`, but the operator must also be commutative.
def reduce_comm [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a): a =
  __intrinsic "reduce_comm" op ne as

-- | Inclusive prefix scan.
def scan [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a): *[n]a =
  __intrinsic "scan" op ne as

-- | `reduce_by_index dest f ne is as` returns `dest`, with each element
-- given by the indices of `is` updated by applying `f` to the current value
-- in `dest` and the corresponding value in `as`. Out-of-bounds indices in
-- `is` are ignored.
def reduce_by_index 'a [k] [n] (dest: *[k]a) (f: a -> a -> a) (ne: a) (is: [n]i64) (as: [n]a): *[k]a =
  __intrinsic "reduce_by_index" dest f ne is as

-- | As `reduce_by_index`, but with two-dimensional indexes.
def reduce_by_index_2d 'a [k] [n] [m] (dest: *[k][m]a) (f: a -> a -> a) (ne: a) (is: [n](i64, i64)) (as: [n]a): *[k][m]a =
  __intrinsic "reduce_by_index_2d" dest f ne is as

-- | As `reduce_by_index`, but with three-dimensional indexes.
def reduce_by_index_3d 'a [k] [n] [m] [l] (dest: *[k][m][l]a) (f: a -> a -> a) (ne: a) (is: [n](i64, i64, i64)) (as: [n]a): *[k][m][l]a =
  __intrinsic "reduce_by_index_3d" dest f ne is as

-- | Construct an array of consecutive integers of the given length,
-- starting at 0.
def iota (n: i64): *[n]i64 =
  __intrinsic "iota" n

-- | Construct an array of the given length containing the given value.
def replicate 't (n: i64) (x: t): *[n]t =
  __intrinsic "replicate" n x

-- | Exclusive prefix scan: element `i` of the result is the `op`-sum of
-- the elements before `i` in `as` (`ne` for the first).
def exscan [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a): *[n]a =
  let s = scan op ne as
  in map (\i -> if i == 0 then ne else s[i - 1]) (iota n)

-- | `hist op ne k is as` computes a `k`-bin histogram: bin `i` is the
-- `op`-sum (from `ne`) of those `as[j]` for which `is[j] == i`.
-- Out-of-bounds indices are ignored.
def hist 'a [n] (op: a -> a -> a) (ne: a) (k: i64) (is: [n]i64) (as: [n]a): *[k]a =
  reduce_by_index (replicate k ne) op ne is as

-- | Remove all those elements of `as` that do not satisfy the predicate `p`.
def filter [n] 'a (p: a -> bool) (as: [n]a): *[]a =
  __intrinsic "filter" p as

-- | Split an array into those elements that satisfy the given predicate,
-- and those that do not.
def partition [n] 'a (p: a -> bool) (as: [n]a): ([]a, []a) =
  __intrinsic "partition" p as

-- | Split an array by two predicates, producing three arrays.
def partition2 [n] 'a (p1: a -> bool) (p2: a -> bool) (as: [n]a): ([]a, []a, []a) =
  __intrinsic "partition2" p1 p2 as

-- | Return `true` if the given function returns `true` for all elements.
def all [n] 'a (f: a -> bool) (as: [n]a): bool =
  reduce (&&) true (map f as)

-- | Return `true` if the given function returns `true` for any element.
def any [n] 'a (f: a -> bool) (as: [n]a): bool =
  reduce (||) false (map f as)

-- | `scatter as is vs` writes `vs[j]` to `as[is[j]]` for every `j`;
-- out-of-bounds indices are ignored.
def scatter 't [k] [n] (dest: *[k]t) (is: [n]i64) (vs: [n]t): *[k]t =
  __intrinsic "scatter" dest is vs

-- | `scatter` on a two-dimensional array.
def scatter_2d 't [k] [n] [l] (dest: *[k][n]t) (is: [l](i64, i64)) (vs: [l]t): *[k][n]t =
  __intrinsic "scatter_2d" dest is vs

-- | `scatter` on a three-dimensional array.
def scatter_3d 't [k] [n] [o] [l] (dest: *[k][n][o]t) (is: [l](i64, i64, i64)) (vs: [l]t): *[k][n][o]t =
  __intrinsic "scatter_3d" dest is vs

-- | `spread k x is vs` is an array of `k` elements `x`, except for the
-- positions in `is`, which get the corresponding `vs`.
def spread 't [n] (k: i64) (x: t) (is: [n]i64) (vs: [n]t): *[k]t =
  scatter (replicate k x) is vs

-- | `reduce_stream op f as` applies `f` to chunks of `as` and combines the
-- per-chunk results with `op` (associative). The chunking is unspecified;
-- here the whole array is one chunk.
def reduce_stream [n] 'a 'b (op: b -> b -> b) (f: (k: i64) -> [k]a -> b) (as: [n]a): b =
  f n as

-- | As `reduce_stream`, but the chunks need not be contiguous.
def reduce_stream_per [n] 'a 'b (op: b -> b -> b) (f: (k: i64) -> [k]a -> b) (as: [n]a): b =
  f n as

-- | `map_stream f as` applies `f` to chunks of `as`, each giving an array of
-- the chunk's size, and concatenates the results.
def map_stream [n] 'a 'b (f: (k: i64) -> [k]a -> [k]b) (as: [n]a): *[n]b =
  __intrinsic "copy" (f n as)

-- | As `map_stream`, but the chunks need not be contiguous.
def map_stream_per [n] 'a 'b (f: (k: i64) -> [k]a -> [k]b) (as: [n]a): *[n]b =
  __intrinsic "copy" (f n as)
