-- The fixed cost of one `map` call whose function captures scalars that
-- change every iteration: n one-element maps in a loop, each result read
-- by indexing (docs/performance.md, "Small calls"). Run with
-- THORN_HOST_MIN_WORK=0 so that the host backend plans every call.
def main (n: i64) =
  let xs = [1i64]
  in loop acc = 0i64 for i < n do
       let c = i % 7
       in acc + (map (\x -> x * c + i) xs)[0]
