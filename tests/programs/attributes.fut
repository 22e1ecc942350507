-- Attributes do not change results: #[trace] prints the value (to stderr)
-- and returns it; #[unsafe], #[sequential], #[unroll] and declaration
-- attributes are transparent.
-- ==
-- input { [1, 2, 3] } output { 12 [2, 3, 4] }

#[noinline]
def inc (x: i32) = x + 1

def main (xs: []i32) =
  let s = #[trace(sum)] i32.sum xs
  let ys = #[unsafe] #[sequential] map inc xs
  in (#[unroll] (loop acc = s for i < 3 do acc + 2), #[trace] ys)
