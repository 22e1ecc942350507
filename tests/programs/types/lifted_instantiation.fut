-- Nor may it instantiate a non-lifted type parameter.
-- ==
-- error: is lifted and cannot be an array element

def first 'e (g: i64 -> e) : e = (tabulate 3 g)[0]
def wrap 'a '~r (f: i64 -> a -> r) (x: a) = first (\i -> f i x)
