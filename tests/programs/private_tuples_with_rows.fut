-- Private arrays whose elements are tuples with array components, as in
-- diku-dk/sorts' merge sort over (key, [b]u8) rows (DuckDB-Futhark's
-- string sort): built by replicate, updated in place, loop state, copied.

def insertion_sort [n] (s: *[n](i64, [2]u8)) : *[n](i64, [2]u8) =
  loop s for i in 0...(n - 2) do
    let (s, _) =
      loop (s, j) = (s, i)
      while j >= 0 && s[j].0 > s[j + 1].0 do
        let tmp = copy s[j]
        let s = s with [j] = copy s[j + 1]
        let s = s with [j + 1] = tmp
        in (s, j - 1)
    in s

def merge_seq [k] (s: [k](i64, [2]u8)) (t: [k](i64, [2]u8)) : [k * 2](i64, [2]u8) =
  let n = k * 2
  let (_, data) =
    loop (i, data) = (0, replicate n (head s))
    for m < n do
      let j = m - i
      let (i, x) =
        if j == k || (i < k && s[i].0 <= t[j].0)
        then (i + 1, s[i])
        else (i, t[j])
      in (i, data with [m] = x)
  in data

-- ==
-- entry: sort_blocks
-- input { [5i64, 3, 8, 1, 9, 2, 7, 4] [[5u8, 50], [3, 30], [8, 80], [1, 10], [9, 90], [2, 20], [7, 70], [4, 40]] }
-- output { [1i64, 3, 5, 8, 2, 4, 7, 9] [[1u8, 10], [3, 30], [5, 50], [8, 80], [2, 20], [4, 40], [7, 70], [9, 90]] }
entry sort_blocks [n] (ks: [n]i64) (vs: [n][2]u8) =
  let blocks = unflatten (zip ks vs :> [(n / 4) * 4](i64, [2]u8))
  in map (\b -> insertion_sort (copy b)) blocks |> flatten |> unzip

-- ==
-- entry: merge_pairs
-- input { [1i64, 5, 2, 3, 0, 9, 4, 6] [[1u8, 10], [5, 50], [2, 20], [3, 30], [0, 0], [9, 90], [4, 40], [6, 60]] }
-- output { [1i64, 2, 3, 5, 0, 4, 6, 9] [[1u8, 10], [2, 20], [3, 30], [5, 50], [0, 0], [4, 40], [6, 60], [9, 90]] }
entry merge_pairs [n] (ks: [n]i64) (vs: [n][2]u8) =
  let blocks = unflatten (zip ks vs :> [(n / 4) * 4](i64, [2]u8))
  in map (\b -> merge_seq (b[:2] :> [2](i64, [2]u8)) (b[2:] :> [2](i64, [2]u8))) blocks |> flatten |> unzip

-- A conditional choosing between two such arrays, and a reduction over them.
-- ==
-- entry: choose
-- input { [1i64, 2, 3, 4] [[1u8, 1], [2, 2], [3, 3], [4, 4]] }
-- output { [6i64, 16] }
entry choose [n] (ks: [n]i64) (vs: [n][2]u8) =
  let blocks = unflatten (zip ks vs :> [(n / 2) * 2](i64, [2]u8))
  in map (\b ->
            let c = if b[0].0 > 1 then copy b with [0] = (7, [1, 1]) else copy b
            in i64.sum (map (\(k, r) -> k + i64.u8 r[1]) c)) blocks
