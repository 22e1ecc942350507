type opt 'a = #some a | #none
def get (o: opt i32) = match o
  case #some x -> x
  case #none -> -1
def lit x = match x case -1 -> 'a' case 1.5f32 -> '\n' case (a, {b, c = _}) -> a case _ -> 0
