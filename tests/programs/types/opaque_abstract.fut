-- Ascription makes abstract types opaque: M.t is not i32 outside M.
-- ==
-- error: M.t

module M : { type t val mk : i32 -> t } = {
  type t = i32
  def mk (x: i32) = x
}

def main (x: i32) = M.mk x + 1
