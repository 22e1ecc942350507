-- Sum types have no ordering.
-- ==
-- error: sum type

def main (a: i32) (b: i32) = #x a < #x b
