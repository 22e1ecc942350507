-- A declared `[]` result that the body gives a parameter's size is that
-- size (Futhark generalises both into one size parameter): a loop that
-- passes its parameter through such a function keeps its size, so the
-- result zips with an array of the initial size.
-- ==
-- input { [1, 2, 3] } output { [1, 2, 3] [true, true, true] }

def mark (flags: *[]bool) (is: []i64) : *[]bool = scatter flags is (map (const true) is)

def main [n] (xs: [n]i32) =
  let flags = loop flags = replicate n false for i < n do mark flags [i]
  in unzip (zip xs flags)
