-- A parametric module may take a parametric module as its argument: a
-- functor bound to a name, a curried application, and a functor whose
-- parameter has a parametric module type declared by name.
-- ==
-- input { 1 } output { 3 4 7 2 }

module F = \(P_f: (P: {type a val f : a -> a}) -> {val f : P.a -> P.a}) ->
  \(P_x: {type a val f : a -> a}) ->
    {type a = P_x.a open (P_f P_x)}

module twice = \(P: {type a val f : a -> a}) -> {def f (x: P.a) = P.f (P.f x)}
module thrice = \(P: {type a val f : a -> a}) -> {def f (x: P.a) = P.f (P.f (P.f x))}
module add_one = {type a = i32 def f (x: i32) = x + 1}
module F_2 = F twice add_one
module F_3 = F thrice add_one
module F_6 = F twice F_3

module type has_t = {type t}
module type id_t = (V: has_t) -> {val f : V.t -> V.t}
module id : id_t = \(V: has_t) -> {def f (x: V.t) = x}
module use_id (P: id_t) = {module I = P {type t = i32}}
module R = use_id id

def main (x: i32) = (F_2.f x, F_3.f x, F_6.f x, R.I.f (x + 1))
