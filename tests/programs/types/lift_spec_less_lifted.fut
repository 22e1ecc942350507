-- A module may not define a type more lifted than its module type says.
-- ==
-- error: "vector" is declared size-lifted

module type mt = {type~ vector}

module m = {type^ vector = []i32}: mt
