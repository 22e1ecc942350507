-- Forms from DuckDB-Futhark and futhark-btree that ran on the reference:
-- replicate of a tuple with an array component, scatter into an array of
-- such tuples, a reduction choosing whole tuples with rows, and != on sums
-- through a partial application (`(!=) #null`).

-- ==
-- entry: rep
-- input { 3i64 5 [1u8, 2u8] }
-- output { [5, 5, 5] [[1u8, 2u8], [1u8, 2u8], [1u8, 2u8]] }
entry rep (n: i64) (k: i32) (x: [2]u8) = unzip (replicate n (k, x))

-- ==
-- entry: scat
-- input { [1i64, 3i64, 9i64] [7, 8, 9] [[1u8, 2u8], [3u8, 4u8], [5u8, 6u8]] }
-- output { [0, 7, 0, 8] [[0u8, 0u8], [1u8, 2u8], [0u8, 0u8], [3u8, 4u8]] }
entry scat (is: []i64) (ks: []i32) (vs: [][2]u8) =
  let d = replicate 4 (0i32, replicate 2 0u8)
  in unzip (scatter d is (zip ks vs))

-- ==
-- entry: largest
-- input { [1, 5, 3] [[1u8, 1u8], [5u8, 5u8], [3u8, 3u8]] }
-- output { 5 [5u8, 5u8] }
-- input { [4, 2, 9, 9, 1, 0, 3, 8, 7, 6, 5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 4]
--         [[0u8, 0u8], [1u8, 1u8], [2u8, 2u8], [3u8, 3u8], [4u8, 4u8], [5u8, 5u8], [6u8, 6u8], [7u8, 7u8],
--          [8u8, 8u8], [9u8, 9u8], [10u8, 10u8], [11u8, 11u8], [12u8, 12u8], [13u8, 13u8], [14u8, 14u8],
--          [15u8, 15u8], [16u8, 16u8], [17u8, 17u8], [18u8, 18u8], [19u8, 19u8], [20u8, 20u8], [21u8, 21u8]] }
-- output { 9 [16u8, 16u8] }
entry largest (ks: []i32) (ps: [][2]u8) =
  let xs = zip ks ps
  in reduce (\a b -> if a.0 < b.0 || (a.0 == b.0 && a.1[0] < b.1[0]) then b else a) xs[0] xs

type ptr = #null | #ptr i64

def mk (i: i64) : ptr = if i % 2 == 0 then #null else #ptr i

def valid_ptr : ptr -> bool = (!=) #null

-- ==
-- entry: valid
-- input { [1i64, 2i64, 3i64, 4i64] }
-- output { [1i64, 0i64, 1i64, 0i64] }
entry valid (xs: []i64) = map (valid_ptr >-> i64.bool) (map mk xs)

-- scatter into an array of sums (futhark-btree's search results): the
-- destination and values as columns in the layout of every constructor.
type sr = #not_found | #result (i64, i64)

-- ==
-- entry: found
-- input { [1i64, 3i64, 7i64] }
-- output { [0i64, 1i64, 0i64, 3i64] [0i64, 2i64, 0i64, 6i64] }
entry found (is: []i64) =
  let dst : []sr = replicate 4 #not_found
  let r = scatter (copy dst) is (map (\i -> #result (i, 2 * i)) is)
  in unzip (map (\x -> match x case #not_found -> (0, 0) case #result (a, b) -> (a, b)) r)

-- ==
-- entry: enums
-- input { 10i64 }
-- output { [1i32, 0i32, 0i32, 1i32, 0i32, 0i32, 1i32, 0i32, 0i32, 1i32] }
entry enums (n: i64) =
  let r = scatter (replicate n (#off : #on | #off)) (map (* 3) (iota n)) (replicate n #on)
  in map (\x -> match x case #on -> 1i32 case #off -> 0) r
