-- A local function's declared type parameters are generalised; a loop
-- parameter's size may grow from one iteration to the next.
-- ==
-- input { 3i64 } output { 3i64 true 8i64 }

def main (n: i64) =
  let pick 'a (x: a) (_: i64) = x
  let grown = loop (acc: []i64) = [1] for i < n do acc ++ acc
  in (pick n 0, pick true 1, length grown)
