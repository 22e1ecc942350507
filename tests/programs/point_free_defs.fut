-- Point-free polymorphic definitions of functions (`def fromarrs = map
-- (\x -> (x[0], x[1]))`, Futhark's ad/scan6) used inside mapped functions.
-- The evaluator binds them lazily, evaluated under each reference's
-- instantiation; the flattener lowers such a definition's body where it
-- was defined. Before, every map using one ran on the reference ("`fromarrs`
-- is a polymorphic constant").

def fromarrs = map (\x -> (x[0], x[1]))
def toarrs = map (\(a, b) -> [a, b])
def swapped = map (\(a, b) -> (b, a))

-- ==
-- input { [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]] }
-- output { [[[2.0, 1.0], [4.0, 3.0]], [[6.0, 5.0], [8.0, 7.0]]] [[3, 7], [11, 15]] }
entry main (xss: [][][2]f64) =
  ( map (\xs -> toarrs (swapped (fromarrs xs))) xss
  , map (\xs -> map (\(a, b) -> i32.f64 (a + b)) (fromarrs xs)) xss
  )
