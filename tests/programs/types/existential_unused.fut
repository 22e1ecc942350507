-- An existential size used only inside a function type cannot be known.
-- ==
-- error: Existential size "n" not used as array size

def f (k: i64) : ?[n].bool -> [n]bool = \b -> replicate k b

def main (k: i64) = f k true
