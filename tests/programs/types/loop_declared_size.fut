-- A loop parameter declared with size k: the body must keep it.
-- ==
-- error: Loop body does not have expected type.*"k" and "2" do not match

def main (k: i64) : [k]i32 =
  loop (acc: [k]i32) = replicate k 0
  for i < 3 do
    replicate 2 1
