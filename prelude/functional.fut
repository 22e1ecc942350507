-- | Simple functional combinators.

-- | Left-to-right application: `x |> f |> g`.
def (|>) '^a '^b (x: a) (f: a -> b): b = f x

-- | Right-to-left application.
def (<|) '^a '^b (f: a -> b) (x: a): b = f x

-- | Function composition, values flowing from left to right.
def (>->) '^a '^b '^c (f: a -> b) (g: b -> c) (x: a): c = g (f x)

-- | Function composition, values flowing from right to left.
def (<-<) '^a '^b '^c (g: b -> c) (f: a -> b) (x: a): c = g (f x)

-- | Flip the arguments passed to a function: `f x y == flip f y x`.
def flip '^a '^b '^c (f: a -> b -> c) (b: b) (a: a): c = f a b

-- | Transform a function taking a pair into a function taking two arguments.
def curry '^a '^b '^c (f: (a, b) -> c) (a: a) (b: b): c = f (a, b)

-- | Transform a function taking two arguments into a function taking a pair.
def uncurry '^a '^b '^c (f: a -> b -> c) (a: a, b: b): c = f a b

-- | The constant function.
def const '^a '^b (x: a) (_: b): a = x

-- | The identity function.
def id '^a (x: a): a = x

-- | Apply a function some number of times.
def iterate 'a (n: i32) (f: a -> a) (x: a): a =
  loop x for _i < n do f x

-- | Keep applying `f` until `p` returns true for the input value.
def iterate_until 'a (p: a -> bool) (f: a -> a) (x: a): a =
  loop x while !(p x) do f x

-- | Keep applying `f` while `p` returns true for the input value.
def iterate_while 'a (p: a -> bool) (f: a -> a) (x: a): a =
  loop x while p x do f x

-- | The identity function, which Futhark's compiler promises not to see
-- through (it blocks optimisations in tests); an interpreter has nothing to
-- block, so it is the identity here too.
def opaque '^a (x: a): a = x

-- | Negate a boolean: `not x` is `!x` (useful for passing to `map`).
def not (x: bool): bool = !x

-- | The identity, printing its argument when it runs (as `#[trace]`).
def trace 't (x: t): t = #[trace(trace)] x

-- | The identity (a break point in Futhark's REPL; thorn's REPL has none).
def break 't (x: t): t = x
