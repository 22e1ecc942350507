-- Two record types with different fields: Futhark names the ones not shared.
-- ==
-- error: unshared fields: y, z.

def f (r: {x: i32, y: i32}) : {x: i32, z: i32} = r
