-- A module type's specifications are checked where it is declared, even
-- if it is never used.
-- ==
-- error: "elem"

module type container = {
  type c
  val first : c -> elem
}
