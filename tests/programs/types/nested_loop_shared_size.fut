-- Loop parameters whose sizes an inner loop's body makes one (a function
-- of [n] and [n] called on both) keep the initial size when the outer loop
-- leaves them unchanged: the result is [n], not an unknown size
-- (diku-dk/list-ranking's Blelloch-Reid-Miller sublist ranking).
-- ==
-- input { [1i64, 2i64, -1i64] }
-- output { [3i32, 2i32, 1i32] [2i64, 2i64, -1i64] }

def step [n] (R: [n]i32) (S: [n]i64) =
  let f i =
    if S[i] < 0 || S[S[i]] < 0
    then (R[i], S[i])
    else (R[i] + R[S[i]], S[S[i]])
  in unzip (tabulate n f)

def ranks [n] (S: [n]i64) : ([n]i32, [n]i64) =
  let (_, R, S) =
    loop (go, R, S) = (true, replicate n 1, copy S)
    while go do
      let R_old = R
      let (R, S) = loop (R, S) for _i < 2 do step R S
      in (or (map2 (!=) R_old R), R, S)
  in (map2 (\r s -> if s < 0 then r else r + R[s]) R S, S)

entry main [n] (S: [n]i64) : ([n]i32, [n]i64) = ranks S
