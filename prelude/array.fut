-- | Utility functions for arrays.

import "soacs"
import "functional"

-- | The size of the outer dimension of an array.
def length [n] 't (_: [n]t): i64 = n

-- | Is the array empty?
def null [n] 't (_: [n]t): bool = n == 0

-- | The first element of the array.
def head [n] 't (x: [n]t): t = x[0]

-- | The last element of the array.
def last [n] 't (x: [n]t): t = x[n - 1]

-- | Everything but the first element of the array.
def tail [n] 't (x: [n]t): [n - 1]t = x[1:] :> [n - 1]t

-- | Everything but the last element of the array.
def init [n] 't (x: [n]t): [n - 1]t = x[0:n - 1] :> [n - 1]t

-- | Take some number of elements from the head of the array.
def take [n] 't (i: i64) (x: [n]t): [i]t = x[0:i] :> [i]t

-- | Remove some number of elements from the head of the array.
def drop [n] 't (i: i64) (x: [n]t): [n - i]t = x[i:] :> [n - i]t

-- | Change the size of an array; fails at run time if the size is wrong.
def sized [m] 't (n: i64) (xs: [m]t): [n]t = xs :> [n]t

-- | Split an array at a given position. The sizes come from the context
-- (the evaluator finds them from the call's type or solves `n + m`).
def split [n] [m] 't (xs: [n + m]t): ([n]t, [m]t) =
  (xs[0:n] :> [n]t, xs[n:n + m] :> [m]t)

-- | Return the elements of the array in reverse order.
def reverse [n] 't (x: [n]t): [n]t = x[::-1] :> [n]t

-- | Concatenate two arrays.
def (++) [n] [m] 't (xs: [n]t) (ys: [m]t): *[n + m]t =
  __intrinsic "concat" xs ys

-- | An old-fashioned way of saying `++`.
def concat [n] [m] 't (xs: [n]t) (ys: [m]t): *[n + m]t = xs ++ ys

-- | Concatenation where the result has a predetermined size; fails at run
-- time if the size is wrong.
def concat_to [n] [m] 't (k: i64) (xs: [n]t) (ys: [m]t): *[k]t = xs ++ ys :> [k]t

-- | An array of the valid indexes of another array.
def indices [n] 't (_: [n]t): *[n]i64 = iota n

-- | Rotate an array some number of elements to the left: if
-- `b == rotate r a`, then `b[x] = a[(x + r) % n]`. Negative amounts rotate
-- to the right.
def rotate [n] 't (r: i64) (xs: [n]t): [n]t =
  __intrinsic "rotate" r xs

-- | An array of the size the context requires, containing the given value.
def rep 't [n] (x: t): *[n]t = replicate n x

-- | Copy a value. The result aliases nothing.
def copy 't (a: t): *t = __intrinsic "copy" a

-- | As `copy`, laid out in row-major order.
def manifest 't (a: t): *t = __intrinsic "copy" a

-- | Combines the outer two dimensions of an array.
def flatten [n] [m] 't (xs: [n][m]t): [n * m]t =
  __intrinsic "flatten" xs

-- | Like `flatten`, but where the final size is known; fails at run time
-- if it is wrong.
def flatten_to [n] [m] 't (l: i64) (xs: [n][m]t): [l]t = flatten xs :> [l]t

-- | Combines the outer three dimensions of an array.
def flatten_3d [n] [m] [l] 't (xs: [n][m][l]t): [n * m * l]t = flatten (flatten xs)

-- | Combines the outer four dimensions of an array.
def flatten_4d [n] [m] [l] [k] 't (xs: [n][m][l][k]t): [n * m * l * k]t = flatten (flatten_3d xs)

-- | Splits the outer dimension of an array in two. The sizes come from the
-- context, as for `split`.
def unflatten 't [n] [m] (xs: [n * m]t): [n][m]t =
  __intrinsic "unflatten" n m xs

-- | Like `unflatten`, but produces three dimensions.
def unflatten_3d 't [n] [m] [l] (xs: [n * m * l]t): [n][m][l]t =
  __intrinsic "unflatten" n m (__intrinsic "unflatten" (n * m) l xs)

-- | Like `unflatten`, but produces four dimensions.
def unflatten_4d 't [n] [m] [l] [k] (xs: [n * m * l * k]t): [n][m][l][k]t =
  __intrinsic "unflatten" n m (__intrinsic "unflatten" (n * m) l (__intrinsic "unflatten" (n * m * l) k xs))

-- | Transpose an array.
def transpose [n] [m] 't (a: [n][m]t): [m][n]t =
  __intrinsic "transpose" a

-- | True if all of the input elements are true; true on an empty array.
def and [n] (xs: [n]bool): bool = all id xs

-- | True if any of the input elements are true; false on an empty array.
def or [n] (xs: [n]bool): bool = any id xs

-- | A *sequential* left fold of an array.
def foldl [n] 'a 'b (f: a -> b -> a) (acc: a) (bs: [n]b): a =
  loop acc for b in bs do f acc b

-- | A *sequential* right fold of an array.
def foldr [n] 'a 'b (f: b -> a -> a) (acc: a) (bs: [n]b): a =
  foldl (flip f) acc (reverse bs)

-- | A value for each point in a one-dimensional index space.
def tabulate 'a (n: i64) (f: i64 -> a): *[n]a =
  map1 f (iota n)

-- | A value for each point in a two-dimensional index space.
def tabulate_2d 'a (n: i64) (m: i64) (f: i64 -> i64 -> a): *[n][m]a =
  map1 (f >-> tabulate m) (iota n)

-- | A value for each point in a three-dimensional index space.
def tabulate_3d 'a (n: i64) (m: i64) (o: i64) (f: i64 -> i64 -> i64 -> a): *[n][m][o]a =
  map1 (f >-> tabulate_2d m o) (iota n)

-- | A flattened map of `f`, which produces an array of its own length and a
-- value per element: the shape array (each result's length), the flag
-- array (true where a segment begins), the offset array (where each
-- segment begins), the concatenated arrays and the values. (thorn runs `f`
-- on the reference path, once per element for each part of the result.)
def flatmap [n] 'a 'b 'c (f: a -> ?[k].([k]b, c)) (as: [n]a): ?[m].([n]i64, [m]bool, [n]i64, [m]b, [n]c) =
  let shape = map (\x -> let (bs, _) = f x in length bs) as
  let offsets = map2 (-) (scan (+) 0 shape) shape
  let m = reduce (+) 0 shape
  let flags = scatter (replicate m false) offsets (replicate n true)
  let data = loop acc = [] for x in as do acc ++ (f x).0
  let cs = map (\x -> (f x).1) as
  in (shape, flags, offsets, data :> [m]b, cs)

-- | Like `flatmap`, but without the value result.
def flatmap' [n] 'a 'b (f: a -> ?[k].[k]b) (as: [n]a): ?[m].([n]i64, [m]bool, [n]i64, [m]b) =
  let (S, F, O, D, _) = flatmap (\x -> (f x, ())) as
  in (S, F, O, D)
