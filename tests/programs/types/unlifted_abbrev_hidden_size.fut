-- A non-lifted type abbreviation may not hide a size: `type info = []f32`
-- needs `type~` (or a size parameter).
-- ==
-- error: Non-lifted type abbreviations may not use existential sizes

module edge_handling (mapper: {type info}) = {
  def handle (i: i32) (info: mapper.info) = info
}

module m = edge_handling {type info = []f32}
