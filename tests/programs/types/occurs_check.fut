-- A function applied to itself would have an infinite type.
-- ==
-- error: Occurs check

def self_apply g = g g
