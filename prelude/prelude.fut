-- | The prelude: everything here is in scope in every program.
--
-- `split`, `unflatten`, `unflatten_3d`, `unflatten_4d` and `rep` have
-- Futhark's signatures (`unflatten [n][m] 't (xs: [n*m]t) : [n][m]t`): the
-- sizes come from the context. At run time they are taken from the call's
-- checked result type, or solved from the argument's size expression
-- (interp/eval/size_infer.hpp).

open import "soacs"
open import "zip"
open import "functional"
open import "array"
open import "math"
open import "ad"
open import "ad_rules"
open import "intrinsics"
