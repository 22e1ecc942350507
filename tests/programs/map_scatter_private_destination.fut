-- A mapped scatter into an array the element builds in a loop: planned one
-- element per row, which builds it once, and right.
-- ==
-- input { [[1,2,3],[4,5,6]] }
-- output { [[3,5,0],[6,11,0]] }
def main (xss: [][]i32) =
  map (\xs -> let acc = loop acc = replicate 3 0 for i < 3 do acc with [i] = i32.sum (drop i xs)
              in scatter acc [2, 1, 0] (map (\j -> if j == 0 then 0 else acc[j]) [0, 1, 2]))
      xss
