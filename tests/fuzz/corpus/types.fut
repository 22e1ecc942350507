type^ f = (x: i64) -> [x]i32 -> ?[n].[n]f32
type~ r = {a: *[]i32, b: (i32, f64), c: vec [3] f32, d: #foo i32 | #bar}
type m [n][m] = [n][m]u8
