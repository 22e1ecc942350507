-- | Transforming arrays of tuples into tuples of arrays and back again.
-- Both are free: arrays of tuples are stored as tuples of arrays.

def zip [n] 'a 'b (as: [n]a) (bs: [n]b): *[n](a, b) =
  __intrinsic "zip" as bs

def zip2 [n] 'a 'b (as: [n]a) (bs: [n]b): *[n](a, b) =
  __intrinsic "zip" as bs

def zip3 [n] 'a 'b 'c (as: [n]a) (bs: [n]b) (cs: [n]c): *[n](a, b, c) =
  __intrinsic "zip" as bs cs

def zip4 [n] 'a 'b 'c 'd (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d): *[n](a, b, c, d) =
  __intrinsic "zip" as bs cs ds

def zip5 [n] 'a 'b 'c 'd 'e (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) (es: [n]e): *[n](a, b, c, d, e) =
  __intrinsic "zip" as bs cs ds es

def unzip [n] 'a 'b (xs: [n](a, b)): ([n]a, [n]b) =
  __intrinsic "unzip" xs

def unzip2 [n] 'a 'b (xs: [n](a, b)): ([n]a, [n]b) =
  __intrinsic "unzip" xs

def unzip3 [n] 'a 'b 'c (xs: [n](a, b, c)): ([n]a, [n]b, [n]c) =
  __intrinsic "unzip" xs

def unzip4 [n] 'a 'b 'c 'd (xs: [n](a, b, c, d)): ([n]a, [n]b, [n]c, [n]d) =
  __intrinsic "unzip" xs

def unzip5 [n] 'a 'b 'c 'd 'e (xs: [n](a, b, c, d, e)): ([n]a, [n]b, [n]c, [n]d, [n]e) =
  __intrinsic "unzip" xs
