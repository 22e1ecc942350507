-- Imports: relative paths, ".fut" implied, a file imported twice loaded
-- once, `module M = import`, and import not re-exporting.
-- ==
-- input { 3.0 4.0 } output { 25.0 7.0 }

import "lib/geometry"
import "lib/vectors"
module V = import "lib/vectors"

def main (x: f64) (y: f64) = (norm2 {x, y}, V.dot {x, y} {x = 1, y = 1})
