-- `&&` short-circuits: it may not be redefined.
-- ==
-- error: The && operator may not be redefined

def (&&) (x: bool) (y: bool) = x

def main (x: bool) = x && x
