-- Array literals have known sizes: 3 and 2 differ.
-- ==
-- error: Sizes "3" and "2" do not match

def main = zip [1, 2, 3] [true, false]
