-- An ascription hides the names its module type does not mention, also
-- from `open`: opening an ascribed module must not shadow outer names with
-- its hidden definitions (structures, functor results, nested modules).
-- ==
-- input { } output { 1 101 101 7 3 }

def helper = 1i32
def hidden = 7i32
def inner_hidden = 3i32

module M : { val f: i32 -> i32 } = { def helper = 100i32 def f (x: i32) = x + helper }
module type S = { val g: i32 }
module F (P: { val f: i32 -> i32 }) : S = { def g = P.f 1 def hidden = 5i32 }
module N = F M
module O : { module I: { val x: i32 } } = { module I = { def x = 0i32 def inner_hidden = 9i32 } }

open M
open N
open O.I

def main = (helper, f 1, g, hidden, inner_hidden)
