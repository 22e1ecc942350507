-- Maps whose rows are arrays of tuples with array components (`map
-- unzip` inside a map: [b]([c]f32, [c]f32) per row): each component
-- written as an array of its own. They ran on the reference backend
-- ("non-scalar element values").

-- ==
-- entry: unzip_rows
-- input { [[[1f32, 2f32], [3f32, 4f32]], [[5f32, 6f32], [7f32, 8f32]]] }
-- output { [[[1f32, 2f32], [3f32, 4f32]], [[5f32, 6f32], [7f32, 8f32]]]
--          [[[2f32, 4f32], [6f32, 8f32]], [[10f32, 12f32], [14f32, 16f32]]] }
entry unzip_rows (xsss: [][][]f32) =
  map (map (map (\x -> (x, 2 * x)))) xsss |> map (map unzip) |> map unzip |> unzip

-- ==
-- entry: products_of_pairs
-- input { [[1f32, 3f32], [2f32, 4f32]] [[5f32, 8f32], [6f32, 7f32]] [[1f32, 1f32], [9f32, 1f32]] }
-- output { [[[23f32, 29f32], [34f32, 44f32]], [[23f32, 29f32], [34f32, 44f32]]]
--          [[[11f32, 15f32], [11f32, 15f32]], [[51f32, 79f32], [51f32, 79f32]]] }
entry products_of_pairs [n] [u] (ass: [n][u]f32) (bss: [u][n]f32) (fss: [][u]f32) =
  map (\fs -> map (\a -> map (\b -> (f32.sum (map2 (*) a b), f32.sum (map2 (*) fs b))) (transpose bss)) ass) fss
  |> map (map unzip) |> map unzip |> unzip
