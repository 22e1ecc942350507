-- A parameter named like the function it belongs to shadows the function
-- in the whole body: `cdf x` below calls the record's field, not `cdf`
-- (diku-dk/statistics). Checking it as a recursive call rejected the
-- program ("Recursive application ... not fully saturated").
-- ==
-- input { 1.0 } output { 3.0 4.0 }

type^ dist = {pdf: f64 -> f64, cdf: f64 -> f64}

def cdf {pdf=_, cdf} (x: f64) = cdf x
def pdf ({pdf, cdf=_}: dist) (x: f64) = pdf x

def mk (a: f64) : dist = {pdf = \x -> x * a * 2, cdf = \x -> x + a}

entry main (x: f64) = (cdf (mk 2) x, pdf (mk 2) x)
