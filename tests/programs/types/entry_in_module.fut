-- Entry points are declared at the top level only.
-- ==
-- error: Entry points may not be declared inside modules

module m = {
  entry f (x: i32) = x + 1
}
