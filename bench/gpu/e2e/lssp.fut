-- Longest satisfying segment (sorted runs) over 10^7 elements, the
-- end-to-end GPU benchmark of notes-scan: a reduction with a 6-tuple operator.
-- ==
-- random input { [10000000]i32 }

def redop (lss1: i32, lis1: i32, lcs1: i32, tl1: i32, first1: i32, last1: i32)
          (lss2: i32, lis2: i32, lcs2: i32, tl2: i32, first2: i32, last2: i32) =
  let connect = tl1 == 0 || tl2 == 0 || last1 <= first2
  let lss = i32.max lss1 (i32.max lss2 (if connect then lcs1 + lis2 else 0))
  let lis = if lis1 == tl1 && connect then lis1 + lis2 else lis1
  let lcs = if lcs2 == tl2 && connect then lcs1 + lcs2 else lcs2
  let first = if tl1 == 0 then first2 else first1
  let last = if tl2 == 0 then last1 else last2
  in (lss, lis, lcs, tl1 + tl2, first, last)

def mapop (x: i32) = (1, 1, 1, 1, x, x)

def main (xs: []i32): i32 = (reduce redop (0, 0, 0, 0, 0, 0) (map mapop xs)).0
