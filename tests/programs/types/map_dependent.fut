-- Mapping a function whose result size is its argument would make an
-- irregular array.
-- ==
-- error: Cannot apply "map" to "upto".*anonymous sizes

def upto (k: i64) : [k]i64 = iota k
def main (n: i64) = map upto (iota n)
