-- A consumed loop parameter may not be given a value bound outside the loop.
-- ==
-- error: Return value for consuming loop parameter "arr" aliases "barr"

def main () : i64 =
  let arr = copy (iota 10)
  let barr = copy (iota 10)
  let arr = loop arr for i < 10 do
              let arr[i] = 0
              in barr
  in barr[0] + arr[0]
