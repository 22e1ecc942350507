-- A variable whose name starts with an underscore may not be used.
-- ==
-- error: variables prefixed with underscore may not be accessed

def main (_x: i32) : i32 = _x
