-- | The prelude: everything here is in scope in every program.
--
-- Differences from Futhark's prelude: `split`, `unflatten`, `unflatten_3d`
-- and `unflatten_4d` take their sizes as arguments (`split i xs`,
-- `unflatten n m xs`), as Futhark's did before size expressions, because
-- thorn's types have no arithmetic on sizes.

open import "soacs"
open import "zip"
open import "functional"
open import "array"
open import "math"
open import "ad"
