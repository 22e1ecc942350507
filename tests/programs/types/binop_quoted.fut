-- The operator is named in quotes, as Futhark does.
-- ==
-- error: "&".*integral

def main (x: f32) = x & 1f32
