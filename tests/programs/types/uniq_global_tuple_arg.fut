-- Consuming a global through a unique tuple-typed parameter.
-- ==
-- error: Consuming "g", which is not consumable

type p = ([3]i32, [3]i32)

def g : p = ([1, 2, 3], [4, 5, 6])

def upd ((xs, ys): *p) : *p = (xs with [0] = 42, ys)

def main (_: i32) = upd g
