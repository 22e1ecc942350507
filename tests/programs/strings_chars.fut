-- String literals are []u8 (UTF-8 bytes); character literals are integers.
-- ==
-- input { } output { [104u8, 195u8, 169u8] 3i64 97 true [72u8, 73u8] }

def upper (s: []u8): []u8 = map (\c -> if c >= 'a' && c <= 'z' then c - 32 else c) s

def main = ("hé", length "hé", 'a', "ab" == "ab", upper "hi")
