-- A size-lifted type parameter may not be an array element.
-- ==
-- error: "r" bound at .* is lifted and cannot be an array element

def both 'a '~r (f: bool -> a -> r) (x: a) = [f true x, f false x]
