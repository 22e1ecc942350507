-- A run-time error lists the calls it passed through, innermost first, as
-- Futhark's backtraces do (Futhark's tests/stacktrace.fut): the failing
-- index in f (line 8), f's call in g (line 10), g's in main (line 12).
-- ==
-- input { [1i32] 1i32 }
-- error: Backtrace:.*runtime_error_backtrace.fut:8:.*runtime_error_backtrace.fut:10:.*runtime_error_backtrace.fut:12:

def f (xs: []i32) (i: i32) = xs[i]

def g (xs: []i32) (i: i32) = f xs i + 1

def main (xs: []i32) (i: i32) = g xs i
