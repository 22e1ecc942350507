-- User parameters (`#[param(name)] e`, e: i64) take their values from the
-- program's tuning file, user_params.fut.tuning, as `futhark test` passes
-- it; one without a value there keeps e. Also inside a mapped function.
-- ==
-- input { 2i64 [5i64, 6i64] }
-- output { 3i64 [8i64, 9i64] 4i64 }

def main (x: i64) (ys: []i64) =
  ( #[param(foo)] (x + 2)
  , map (\y -> (#[param(foo)] x) + y) ys
  , #[param(unset)] (x + 2)
  )
