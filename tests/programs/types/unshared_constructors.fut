-- Two sum types with different constructors.
-- ==
-- error: Unshared constructors: #b, #c.

def f (v: #a | #b) : #a | #c = v
