-- Keeping the declared size is fine, and undeclared sizes may change.
-- ==
-- input { 3i64 } output { [3, 3, 3] [0, 0, 0, 0, 0, 0, 0, 0] }

def main (k: i64) =
  let a = loop (acc: [k]i32) = replicate k 0 for i < 3 do map (+ 1) acc
  let b = loop acc = [0] for i < 3 do acc ++ acc
  in (a, b)
