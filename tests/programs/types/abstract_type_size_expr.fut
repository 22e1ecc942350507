-- A type made abstract by ascription must use each size parameter as an
-- array size: `[n + m]bool` does not.
-- ==
-- error: cannot be made abstract because size parameter

module m : {type sum [n] [m]} = {
  type sum [n] [m] = [n + m]bool
}
