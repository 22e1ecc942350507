def (+^) (a: i32, b: i32) (c: i32, d: i32) = (a + c, b + d)
def x <*> y = x * y >>= 2 |> f <| g `max` h
def f = -x ** 2 + !b && c || d & e ^ g | h << 1 >> 2 // 3 %% 4 == 5 != 6 <= 7
