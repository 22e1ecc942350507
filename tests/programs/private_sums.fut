-- Private arrays of sums inside a mapped function, as futhark-btree builds
-- its nodes' child pointers: `scatter (replicate c #null) (indices cc) cc`
-- with cc read from a boxed array of sums (which holds only the
-- constructors found in it), then matched on. Kept in parts: one array for
-- the tag, one per payload scalar.

type ptr = #null | #ptr i64

def ptr_from_i64 (i: i64) : ptr = if i < 0 then #null else #ptr i

def count (ps: []ptr) : i64 = i64.sum (map (\p -> match p case #null -> 0 case #ptr _ -> 1) ps)

-- ==
-- input { [3i64, 0, 2, 1] [5i64, 6, 7, 8, 9, 10] }
-- output { [[5i64, 6, 7, -1], [-1, -1, -1, -1], [7, 8, -1, -1], [8, -1, -1, -1]] [3i64, 0, 2, 1] }
entry main (sizes: []i64) (targets: []i64) =
  let ptrs = map ptr_from_i64 targets
  let nodes =
    map2 (\s i ->
            let cc = ptrs[i:i + s]
            in scatter (replicate 4 #null) (indices cc) cc)
         sizes (iota (length sizes))
  in (map (\ps -> map (\p -> match p case #null -> -1 case #ptr t -> t) ps) nodes, map count nodes)

-- Updated in place in a loop, the state a private array of sums.
-- ==
-- entry: chain
-- input { [1i64, 2, 3] }
-- output { [[-1i64, 1, 2], [-1, 2, 4], [-1, 3, 6]] }
entry chain (xs: []i64) =
  map (\x ->
         let a = loop a = replicate 3 (#null : ptr) for i in 1..<3 do a with [i] = #ptr (x * i)
         in map (\p -> match p case #null -> -1 case #ptr t -> t) a)
      xs
