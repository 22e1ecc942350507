-- Applying something that is not a function.
-- ==
-- error: Cannot apply expression as function

def main (b: bool) = (!b) 1
