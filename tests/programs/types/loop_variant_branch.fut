-- A loop parameter's size that the body changes is unknown after the loop:
-- the other branch of an `if` (`[start]`) may not fix it, nor through it the
-- size of the caller's argument.
-- ==
-- input { [1, 2, 3, 4, 5] } output { 5i64 }

def semi (start: i32) (points: []i32) =
  if null points then [start]
  else (loop (hull, ps) = ([], points) while !(null ps) do (hull ++ ps[0:1], ps[1:])).0

def compute (ps: []i32) =
  if length ps <= 3 then ps else semi 0 ps

def main (xs: []i32) = length (compute xs)
