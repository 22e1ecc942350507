-- filter, partition and partition2 inside a mapped function: sequential in
-- each element, into private arrays as long as the input, their lengths
-- the counts (known only inside the element). They ran on the reference
-- ("intrinsic filter inside a mapped function"): Futhark's quickhull,
-- futhark-btree's tests, DuckDB-Futhark's group counts.

-- ==
-- input { [1i64,2,3] [1i64,1,2,5,3,3,3] } output { [2i64,1,3] }
entry main (ks: []i64) (xs: []i64) = map (\k -> let r = filter (==k) xs in length r) ks

-- ==
-- entry: sums
-- input { [1i64,2,3] [1i64,1,2,5,3,3,3] } output { [16i64, 14, 5] [2i64, 3, 6] }
entry sums (ks: []i64) (xs: []i64) =
  unzip (map (\k -> let (a, b) = partition (> k) xs in (i64.sum a, length b)) ks)

-- ==
-- entry: three
-- input { [1i64,2,3] [1i64,1,2,5,3,3,3] } output { [0i64, 2, 3] [4i64, 6, 8] }
entry three (ks: []i64) (xs: []i64) =
  unzip (map (\k -> let (a, b, c) = partition2 (< k) (== k) xs in (length a, if length c > 0 then c[0] + length b else 0)) ks)

-- ==
-- entry: scanned
-- input { [1i64,2] [4i64,1,2,5,3] } output { [[4i64, 6, 11, 14], [4, 9, 12, 12]] }
entry scanned (ks: []i64) (xs: []i64) =
  map (\k -> let r = filter (> k) xs
             let s = scan (+) 0 r
             in tabulate 4 (\i -> if i < length s then s[i] else s[length s - 1])) ks

-- Elements holding arrays or sums: the private arrays are kept in parts.
-- ==
-- entry: rows_and_sums
-- input { [1i64,2,3] [1i64,1,2,5,3,3,3] } output { [3i64, 6, 6] [5i64, 4, 3] }
entry rows_and_sums (ks: []i64) (xs: []i64) =
  unzip (map (\k ->
                let r = filter (\(a, _) -> a > k) (zip xs (map (\x -> [x, x + 1]) xs))
                let ps = map (\x -> if x > k then #ptr x else #null) xs : [](#null | #ptr i64)
                let live = filter (\p -> match p case #null -> false case #ptr _ -> true) ps
                in (if length r > 0 then r[0].1[1] else 0, length live + i64.bool (k == 3) * 2)) ks)
