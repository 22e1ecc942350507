-- One argument too many: the function takes two.
-- ==
-- error: Function accepts only 2 arguments

def add (x: i32) (y: i32) = x + y
def main = add 1 2 3
