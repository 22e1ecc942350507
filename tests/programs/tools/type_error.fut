-- A program that must fail to type-check: `thorn test` passes when it does.
-- ==
-- error: .

def main (x: i32): bool = x
