-- A name may be bound only once among a function's parameters, size
-- parameters included (Futhark's "also bound").
-- ==
-- error: Name "k" also bound at

def g [k] (k: [k]i64) = k
