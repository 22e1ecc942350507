-- A `[]` in an entry point's declared result that the body leaves
-- unsolved (a hole here) would be a size parameter of the entry point
-- (Futhark's letGeneralise), which its caller could not supply.
-- ==
-- error: size-polymorphic

def main (b: bool) : []i32 = ???
