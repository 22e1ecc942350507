-- The fixed cost of one SOAC call on a 1-element array: n reductions in a
-- loop (docs/performance.md). Run with THORN_HOST_MIN_WORK=0 so that the
-- host backend plans every call.
def main (n: i64) =
  loop acc = 0i64 for i < n do acc + reduce (+) 0 [i]
