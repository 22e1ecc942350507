-- Declared type~, it is fine.
-- ==
-- input { 2 } output { 2 }

module type has_state = {type~ state}
module wrap (S: has_state) = {
  type pair 'a = (a, i32)
  type~ both = pair S.state
}
module w = wrap {type~ state = []i32}
def main (x: i32) = x
