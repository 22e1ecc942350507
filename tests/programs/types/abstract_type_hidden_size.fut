-- A value specified with a size-lifted abstract type that the module
-- defines with a hidden size would have a size of its own.
-- ==
-- error: Type substitution in "empties" results in a top-level size

module type dict = {
  type~ dict
  val empties : (dict, dict)
}

module naive_dict : dict = {
  type~ dict = []bool
  def empties = ([], [true])
}
