-- The element of a for-in loop aliases the array it iterates over.
-- ==
-- error: Return value for consuming loop parameter "acc" aliases "xss"

def main (xss: [][3]i32) =
  loop acc = replicate 3 0 for xs in xss do
    let acc[0] = 42
    in xs
