def map 'a 'b (f: a -> b) (as: []a) : []b = __intrinsic "map" f as
#[inline] entry main = \x y -> x + y
