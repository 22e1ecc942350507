-- Sections of an operator defined with one parameter that returns a
-- function (`def (*>) = scale`, scale s = \v -> ...), as futhark-lang.org's
-- ray tracer writes `def neg = ((-1)*>)`: the section takes the operator's
-- second argument in turn. Applying one gave back a function (the reference
-- backend) and, through a record, "value has no field x".
-- ==
-- input { 5.0 [1.0, 2.0] }
-- output { -5.0 10.0 12.0 -5.0 [-1.0, -2.0] [3.0, 6.0] [-3.0, -6.0] }

type vec = {x: f64, y: f64}

def scale (s: f64) = \(v: f64) -> s * v
def (*>) = scale
def neg = ((-1) *>)
def times3 = (*> 3)

def vscale (s: f64) = \(v: vec) -> {x = s * v.x, y = s * v.y}
def (**>) = vscale
def vneg = ((-1) **>)

def main (x: f64) (xs: []f64) =
  let vs = map (\a -> {x = a, y = 2 * a}) xs
  in (neg x, (2 *>) x, times3 4, (-1) *> x,
      map neg xs, map times3 xs, map (\v -> v.x + v.y) (map vneg vs))
