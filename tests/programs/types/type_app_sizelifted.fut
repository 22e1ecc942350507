-- A size-lifted type given for a non-lifted type parameter makes the
-- abbreviation size-lifted.
-- ==
-- error: may not contain size-lifted

module type has_state = {type~ state}
module wrap (S: has_state) = {
  type pair 'a = (a, i32)
  type both = pair S.state
}
