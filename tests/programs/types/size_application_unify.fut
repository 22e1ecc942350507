-- A size written as a function application (`[cap nb n]`) is kept as
-- syntax, as Futhark compares size expressions structurally: at a call,
-- the parameter `n` is solved from an argument of type [cap nb k], so the
-- evaluator knows it although no argument's shape is `n` itself.
-- ==
-- input { 12i64 } output { 12i64 2i64 4i64 20i64 }
-- input { 17i64 } output { 17i64 3i64 7i64 20i64 }

def cap (k: i64) (n: i64) : i64 = (n - 1) / k + 1
def nb : i64 = 8
def capacity : i64 = 20

def empty (n: i64) : *[cap nb n]u8 = replicate (cap nb n) 0

-- n appears only inside the application.
def bits [n] (set: [cap nb n]u8) : i64 = n
def unused [n] (set: [cap nb n]u8) : i64 = nb * length set - n

def main (c: i64) =
  let s = empty c
  -- A top-level constant as the argument is a size too.
  in (bits s, length (replicate (cap nb c) 0u8), unused (map (+ 1) s |> id), bits (empty capacity))
