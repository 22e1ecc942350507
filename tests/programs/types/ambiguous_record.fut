-- A parameter that only field accesses constrain has an ambiguous type.
-- ==
-- error: Type is ambiguous

def f x = x.l

def main (x: i32) = f {l = x}
