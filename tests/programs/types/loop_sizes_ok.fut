-- Loop results: an invariant size is the initial one; a loop-variant
-- size is accepted where nothing fixes it; `[]` in a loop parameter's
-- ascription is inferred.
-- ==
-- input { [1,2,3] 2 }
-- output { [2,3,4] 12 [1,2,3] }

def main [n] (xs: [n]i32) (k: i32) : ([n]i32, i64, [n]i32) =
  let ys = loop ys = copy xs for i < 1 do map (+ 1) ys
  let zs = loop zs = xs for _i < k do zs ++ zs
  let ws = loop (ws: []i32) = xs for _i < k do map (+ 0) ws
  in (ys, length zs, ws)
