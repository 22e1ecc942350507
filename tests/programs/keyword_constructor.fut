-- A constructor may be spelled like a keyword (`#val`), as Futhark's lexer
-- reads `#` followed by any identifier (futhark-lang.org's examples use it).
-- ==
-- input { [1, 2, 3] }
-- output { 6 }

type with_neutral 't = #neutral | #val t

def op (x: with_neutral i32) (y: with_neutral i32) : with_neutral i32 =
  match (x, y)
  case (#neutral, _) -> y
  case (_, #neutral) -> x
  case (#val a, #val b) -> #val (a + b)

def main (xs: []i32) : i32 =
  match reduce op #neutral (map (\x -> #val x) xs)
  case #val s -> s
  case #neutral -> 0
