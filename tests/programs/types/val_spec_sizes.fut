-- A module type's value specifications name their sizes.
-- ==
-- error: must have non-anonymous sizes

module type mt = {
  val f : []i32 -> i32
}
