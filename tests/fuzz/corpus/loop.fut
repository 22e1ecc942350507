def main n =
  let a = loop acc = 0 for i < n do acc + i
  let b = loop (x, y) = (0, 1) while x < 100 do (y, x + y)
  let c = loop s for x in xs do s + x
  in #[unroll] loop z = 0 for i < 4 do z
