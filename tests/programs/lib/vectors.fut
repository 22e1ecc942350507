type vec2 = {x: f64, y: f64}
def dot (a: vec2) (b: vec2) = a.x * b.x + a.y * b.y
