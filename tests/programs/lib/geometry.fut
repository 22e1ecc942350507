-- A library imported by imports.fut (no tests of its own).
import "vectors"

def norm2 (v: vec2) = dot v v
local def unused = 0i32
