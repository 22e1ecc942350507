-- Maps of maps five deep, built twice inside a mapped function, the second
-- reading the first's elements: the same small helper (imap) is active ten
-- times while the element is lowered, which is nesting, not recursion
-- (it ran on the reference backend as "recursive function imap").

def imap 'a (n: i64) (f: i64 -> a) : [n]a = map f (iota n)
def imap2 'a (m: i64) (n: i64) (f: i64 -> i64 -> a) = imap m (\i -> imap n (f i))
def imap3 'a (m: i64) (n: i64) (k: i64) (f: i64 -> i64 -> i64 -> a) = imap m (\i -> imap2 n k (f i))
def imap4 'a (m: i64) (n: i64) (k: i64) (l: i64) (f: i64 -> i64 -> i64 -> i64 -> a) =
  imap m (\i -> imap3 n k l (f i))
def imap5 'a (m: i64) (n: i64) (k: i64) (l: i64) (t: i64) (f: i64 -> i64 -> i64 -> i64 -> i64 -> a) =
  imap m (\i -> imap4 n k l t (f i))

def g (x: f32) : f32 =
  let y = imap5 2 1 2 1 1 (\a _ c _ _ -> x + f32.i64 (a + c))
  let z = imap5 2 1 2 1 1 (\a b c d e -> y[a][b][c][d][e] * 2)
  in z[1][0][1][0][0]

-- ==
-- input { [1f32, 2f32, 3f32] }
-- output { [6f32, 8f32, 10f32] }
entry main [n] (xs: [n]f32) = imap n (\i -> g xs[i])
