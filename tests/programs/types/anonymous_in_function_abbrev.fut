-- No hiding an anonymous size inside a function type.
-- ==
-- error: anonymous size not used constructively

type^ t = []bool -> bool
