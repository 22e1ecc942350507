-- Valid consumption: unique parameters, fresh arrays, loops that update
-- their own parameter, and i32 indices (Futhark accepts any signed index).
-- ==
-- input { [1, 2, 3, 4] 2 10 } output { [1, 2, 10, 4] [0i64, 1i64, 2i64] 6 }

def update (a: *[]i32) (i: i32) (x: i32) : *[]i32 =
  a with [i] = x

def main (a: *[]i32) (i: i32) (x: i32) =
  let a = update a i x
  let ys = loop ys = iota 3 for j < 3 do ys with [j] = i64.i32 (i32.i64 j)
  let zs = copy a
  let zs[0] = 5
  in (a, ys, zs[0] + zs[0] - 4)
