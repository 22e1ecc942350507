// The SOACs and array primitives on the reference backend, including the
// test cases of the seed notes (histograms, segmented scans, flattening
// utilities) that the reference semantics must reproduce.
#include "eval_test_util.hpp"

using thorn::test::eval_error;
using thorn::test::eval_text;

TEST_CASE("map with one or more arrays") {
  CHECK(eval_text("map (+1) [1, 2, 3]") == "[2i32, 3i32, 4i32]");
  CHECK(eval_text("map2 (+) [1, 2] [10, 20]") == "[11i32, 22i32]");
  CHECK(eval_text("map3 (\\a b c -> a * b + c) [1, 2] [3, 4] [5, 6]") == "[8i32, 14i32]");
  CHECK(eval_text("map5 (\\a b c d e -> a + b + c + d + e) [1] [2] [3] [4] [5]") == "[15i32]");
  CHECK(eval_text("map (\\x -> (x, x * 2)) [1, 2]") == "[(1i32, 2i32), (2i32, 4i32)]");
  CHECK(eval_text("map (\\x -> [x, x]) [1, 2]") == "[[1i32, 1i32], [2i32, 2i32]]");
  CHECK(eval_text("map (\\(a, b) -> a + b) (zip [1, 2] [3, 4])") == "[4i32, 6i32]");
  CHECK(eval_text("map (map (*2)) [[1, 2], [3, 4]]") == "[[2i32, 4i32], [6i32, 8i32]]");
  CHECK(eval_text("map (+1) ([] : []i32)") == "empty([0]i32)");
  CHECK(eval_text("map (\\x -> [x, x]) ([] : []i32)") == "empty([0][2]i32)");
  CHECK(eval_text("length (map (\\x -> (x, true)) ([] : []f32))") == "0i64");
}

TEST_CASE("map2 over arrays of different sizes fails") {
  // Sizes known only at run time (filter's result): constant sizes that
  // differ are rejected by the checker instead.
  std::string e = eval_error("map2 (+) (filter (> 0) [1, 2]) [3, 4, 5]");
  CHECK(e.find("Size mismatch: 2 vs 3") != std::string::npos);
  CHECK(eval_error("zip (filter (> 0) [1, 2]) [3, 4, 5]").find("Size mismatch: 2 vs 3") != std::string::npos);
  CHECK(eval_error("map2 (+) [1, 2] [3, 4, 5]").find("do not match") != std::string::npos);
}

TEST_CASE("reduce folds left to right from the neutral element") {
  CHECK(eval_text("reduce (+) 0 (1...100)") == "5050i32");
  CHECK(eval_text("reduce (*) 1 ([] : []i32)") == "1i32");
  // Non-commutative: string-like concatenation order is preserved.
  CHECK(eval_text("reduce (\\a b -> a * 10 + b) 0 [1, 2, 3]") == "123i32");
  CHECK(eval_text("reduce_comm (+) 0 [1, 2, 3]") == "6i32");
  CHECK(eval_text("reduce (\\(a, b) (c, d) -> (a + c, b * d)) (0, 1) (zip [1, 2, 3] [2, 3, 4])") ==
        "(6i32, 24i32)");
  CHECK(eval_text("reduce (map2 (+)) [0, 0] [[1, 2], [3, 4], [5, 6]]") == "[9i32, 12i32]");
}

TEST_CASE("scan is inclusive") {
  CHECK(eval_text("scan (+) 0 [1, 2, 3, 4]") == "[1i32, 3i32, 6i32, 10i32]");
  CHECK(eval_text("scan (+) 0 ([] : []i32)") == "empty([0]i32)");
  // notes-scan 4: affine composition, non-commutative, over tuples.
  CHECK(eval_text("scan (\\(a, b) (c, d) -> (a * c, b * c + d)) (1, 0) [(2, 1), (3, 0), (1, 5)]") ==
        "[(2i32, 1i32), (6i32, 3i32), (6i32, 8i32)]");
  // notes-ad T16: crossing tuple operator.
  CHECK(eval_text("scan (\\(a1, b1) (a2, b2) -> (b1 * a2 + b2 * a1, b1 * b2)) (0, 1) [(1, 2), (3, 4), (5, 6)]") ==
        "[(1i32, 2i32), (10i32, 8i32), (100i32, 48i32)]");
  // notes-ad T19.
  CHECK(eval_text("scan (\\(d1, c1) (d2, c2) -> (d2 + c2 * d1, c2 * c1)) (0, 1) [(1, 2), (3, 4), (5, 6)]") ==
        "[(1i32, 2i32), (7i32, 8i32), (47i32, 48i32)]");
}

TEST_CASE("segmented scans and reductions (notes-flattening, notes-scan, notes-segred)") {
  const char* sgm_scan =
      "let sgm_scan [n] (op: i32 -> i32 -> i32) (ne: i32) (vals: [n]i32) (flags: [n]bool): [n]i32 = "
      "  let pairs = scan (\\(v1, f1) (v2, f2) -> (if f2 then v2 else op v1 v2, f1 || f2)) (ne, false) (zip vals flags) "
      "  in map (.0) pairs in ";
  CHECK(eval_text(std::string(sgm_scan) + "sgm_scan (+) 0 [1, 2, 3, 4, 5, 6] [true, false, false, true, false, false]") ==
        "[1i32, 3i32, 6i32, 4i32, 9i32, 15i32]");
  CHECK(eval_text(std::string(sgm_scan) + "sgm_scan (*) 1 [2, 3, 4, 4, 5] [true, false, true, true, false]") ==
        "[2i32, 6i32, 4i32, 4i32, 20i32]");
  // Regular segments: map-scan and map-reduce.
  CHECK(eval_text("map (scan (*) 1) [[2, 3], [4, 5]]") == "[[2i32, 6i32], [4i32, 20i32]]");
  CHECK(eval_text("map (reduce (+) 0) [[1, 2, 3], [4, 5, 6]]") == "[6i32, 15i32]");
  CHECK(eval_text("map (reduce (+) 0) (replicate 3 ([] : []i32))") == "[0i32, 0i32, 0i32]");
  CHECK(eval_text("map (reduce (+) 0) ([] : [][4]i32)") == "empty([0]i32)");
  // Affine composition in segments of 3 (notes-scan, test 4).
  CHECK(eval_text("map (scan (\\(a, b) (c, d) -> (a * c, b * c + d)) (1, 0)) "
                  "[[(2, 1), (3, 0), (1, 5)], [(2, 2), (1, 1), (3, 3)]]") ==
        "[[(2i32, 1i32), (6i32, 3i32), (6i32, 8i32)], [(2i32, 2i32), (2i32, 3i32), (6i32, 12i32)]]");
}

TEST_CASE("histograms (notes-hist)") {
  CHECK(eval_text("hist (+) 0 5 [0, 1, 1, 3, 3, 3] (replicate 6 1)") == "[1i32, 2i32, 0i32, 3i32, 0i32]");
  CHECK(eval_text("reduce_by_index [10, 20, 30] (+) 0 [0, 2, 2] [1, 2, 3]") == "[11i32, 20i32, 35i32]");
  CHECK(eval_text("reduce_by_index (replicate 3 0) (+) 0 [-1, 3, 5, 0, 2, i64.lowest, i64.highest] (replicate 7 1)") ==
        "[1i32, 0i32, 1i32]");
  CHECK(eval_text("reduce_by_index [1, 2] (+) 0 ([] : []i64) ([] : []i32)") == "[1i32, 2i32]");
  CHECK(eval_text("hist (+) 0 0 [0, 1] [1, 1]") == "empty([0]i32)");
  CHECK(eval_text("hist i32.max i32.lowest 2 [0, 0, 1] [5, 9, 2]") == "[9i32, 2i32]");
  // Vectorised operator (k-means shape).
  CHECK(eval_text("hist (map2 (+)) [0, 0] 2 [0, 1, 0] [[1, 2], [3, 4], [5, 6]]") == "[[6i32, 8i32], [3i32, 4i32]]");
  // notes-ad T9 primal and T10 primal.
  CHECK(eval_text("reduce_by_index [10, 20, 30] (+) 0 [0, 2, 2, -1, 3] [1, 2, 3, 4, 5]") == "[11i32, 20i32, 35i32]");
  CHECK(eval_text("map2 (*) [1, 2] (reduce_by_index [1, 1] (*) 1 [0, 0, 1, 1, 5] [2, 3, 0, 4, 7])") ==
        "[6i32, 0i32]");
  // Argmax with ties: the lowest index wins (notes-hist 9).
  CHECK(eval_text("reduce_by_index (replicate 2 (i32.lowest, -1i64)) "
                  "(\\(v1, i1) (v2, i2) -> if v1 > v2 || (v1 == v2 && i1 < i2) then (v1, i1) else (v2, i2)) "
                  "(i32.lowest, -1) [0, 0, 1, 1] (zip [3, 7, 2, 2] (iota 4))") ==
        "[(7i32, 1i64), (2i32, 2i64)]");
  CHECK(eval_text("reduce_by_index_2d (replicate 2 (replicate 2 0)) (+) 0 [(0, 1), (1, 0), (0, 1), (2, 2)] [1, 2, 3, 4]") ==
        "[[0i32, 4i32], [2i32, 0i32]]");
}

TEST_CASE("scatter") {
  CHECK(eval_text("scatter (replicate 5 0) [0, 2, 7, -1] [1, 2, 3, 4]") == "[1i32, 0i32, 2i32, 0i32, 0i32]");
  CHECK(eval_text("scatter [1, 2, 3] ([] : []i64) ([] : []i32)") == "[1i32, 2i32, 3i32]");
  CHECK(eval_text("scatter_2d (replicate 2 (replicate 2 0)) [(0, 0), (1, 1), (2, 0)] [5, 6, 7]") ==
        "[[5i32, 0i32], [0i32, 6i32]]");
  CHECK(eval_text("scatter_3d (replicate 1 (replicate 1 (replicate 2 0))) [(0, 0, 1)] [9]") == "[[[0i32, 9i32]]]");
  CHECK(eval_text("spread 3 0 [2] [7]") == "[0i32, 0i32, 7i32]");
  CHECK(eval_text("let xs = [1, 2, 3] let ys = scatter (copy xs) [0] [9] in (xs, ys)") ==
        "([1i32, 2i32, 3i32], [9i32, 2i32, 3i32])");
  CHECK(eval_error("scatter [1, 2] (filter (>= 0) [0]) [1, 2]").find("Size mismatch: 1 vs 2") != std::string::npos);
}

TEST_CASE("filter and partition") {
  CHECK(eval_text("filter (>2) [1, 5, 2, 7]") == "[5i32, 7i32]");
  CHECK(eval_text("filter (>9) [1, 5]") == "empty([0]i32)");
  CHECK(eval_text("filter (\\(a, _) -> a > 1) (zip [1, 2, 3] [true, false, true])") ==
        "[(2i32, false), (3i32, true)]");
  CHECK(eval_text("partition (\\x -> x % 2 == 0) [1, 2, 3, 4, 5]") == "([2i32, 4i32], [1i32, 3i32, 5i32])");
  CHECK(eval_text("partition2 (<2) (<4) [5, 1, 3, 2, 0]") == "([1i32, 0i32], [3i32, 2i32], [5i32])");
  CHECK(eval_text("all (>0) [1, 2]") == "true");
  CHECK(eval_text("any (>5) [1, 2]") == "false");
  CHECK(eval_text("all (>0) ([] : []i32)") == "true");
  CHECK(eval_text("and [true, false]") == "false");
  CHECK(eval_text("or [true, false]") == "true");
}

TEST_CASE("array primitives") {
  CHECK(eval_text("iota 4") == "[0i64, 1i64, 2i64, 3i64]");
  CHECK(eval_text("iota 0") == "empty([0]i64)");
  CHECK(eval_error("iota (-1)") == "Range 0..1..<-1 is invalid.");
  CHECK(eval_text("replicate 3 true") == "[true, true, true]");
  CHECK(eval_text("replicate 2 [1, 2]") == "[[1i32, 2i32], [1i32, 2i32]]");
  CHECK(eval_text("replicate 0 [1, 2]") == "empty([0][2]i32)");
  CHECK(eval_text("transpose [[1, 2, 3], [4, 5, 6]]") == "[[1i32, 4i32], [2i32, 5i32], [3i32, 6i32]]");
  CHECK(eval_text("transpose [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]") ==
        "[[[1i32, 2i32], [5i32, 6i32]], [[3i32, 4i32], [7i32, 8i32]]]");
  CHECK(eval_text("transpose (replicate 0 [1, 2])") == "empty([2][0]i32)");
  CHECK(eval_text("[1, 2] ++ [3]") == "[1i32, 2i32, 3i32]");
  CHECK(eval_text("concat [[1]] [[2], [3]]") == "[[1i32], [2i32], [3i32]]");
  CHECK(eval_text("([] : []i32) ++ [1]") == "[1i32]");
  CHECK(eval_text("flatten [[1, 2], [3, 4]]") == "[1i32, 2i32, 3i32, 4i32]");
  CHECK(eval_text("flatten_3d [[[1], [2]], [[3], [4]]]") == "[1i32, 2i32, 3i32, 4i32]");
  CHECK(eval_text("unflatten (1...6) : [2][3]i32") == "[[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]]");
  CHECK(eval_text("unflatten_3d (1...4) : [2][1][2]i32") == "[[[1i32, 2i32]], [[3i32, 4i32]]]");
  CHECK(eval_error("unflatten (1...6) : [2][2]i32") == "Cannot unflatten array of shape [6] to array of shape [2][2]");
  CHECK(eval_text("rotate 1 [1, 5, 3, 4, 2, 6, 7, 8]") == "[5i32, 3i32, 4i32, 2i32, 6i32, 7i32, 8i32, 1i32]");
  CHECK(eval_text("rotate (-1) [1, 2, 3]") == "[3i32, 1i32, 2i32]");
  CHECK(eval_text("rotate 7 [1, 2, 3]") == "[2i32, 3i32, 1i32]");
  CHECK(eval_text("zip3 [1, 2] [true, false] [1.0, 2.0]") == "[(1i32, true, 1.0f64), (2i32, false, 2.0f64)]");
  CHECK(eval_text("unzip3 (zip3 [1] [true] [2u8])") == "([1i32], [true], [2u8])");
  CHECK(eval_text("unzip (map (\\x -> (x, [x])) [1, 2])") == "([1i32, 2i32], [[1i32], [2i32]])");
  CHECK(eval_text("length [1, 2, 3]") == "3i64");
  CHECK(eval_text("null ([] : []i32)") == "true");
  CHECK(eval_text("head [4, 5]") == "4i32");
  CHECK(eval_text("last [4, 5]") == "5i32");
  CHECK(eval_text("tail [4, 5, 6]") == "[5i32, 6i32]");
  CHECK(eval_text("init [4, 5, 6]") == "[4i32, 5i32]");
  CHECK(eval_text("take 2 [4, 5, 6]") == "[4i32, 5i32]");
  CHECK(eval_text("drop 2 [4, 5, 6]") == "[6i32]");
  CHECK(eval_text("split [4, 5, 6] : ([1]i32, [2]i32)") == "([4i32], [5i32, 6i32])");
  CHECK(eval_text("reverse [1, 2, 3]") == "[3i32, 2i32, 1i32]");
  CHECK(eval_text("indices [7, 8]") == "[0i64, 1i64]");
  CHECK(eval_text("copy [1, 2]") == "[1i32, 2i32]");
  CHECK(eval_text("foldl (\\acc x -> acc * 10 + x) 0 [1, 2, 3]") == "123i32");
  CHECK(eval_text("foldr (\\x acc -> acc * 10 + x) 0 [1, 2, 3]") == "321i32");
  CHECK(eval_text("tabulate 3 (\\i -> i * i)") == "[0i64, 1i64, 4i64]");
  CHECK(eval_text("tabulate_2d 2 2 (\\i j -> i * 10 + j)") == "[[0i64, 1i64], [10i64, 11i64]]");
  CHECK(eval_text("tabulate_3d 1 2 1 (\\i j k -> i + j + k)") == "[[[0i64], [1i64]]]");
  CHECK(eval_error("head ([] : []i32)") == "Index [0] out of bounds for array of shape [0].");
  CHECK(eval_error("sized 3 [1, 2]").find("cannot match shape") != std::string::npos);
}

TEST_CASE("flattening utilities of notes-flattening") {
  const char* lib =
      "let exscan [n] (xs: [n]i64): [n]i64 = map2 (-) (scan (+) 0 xs) xs in "
      "let sgm_scan_add [n] (vals: [n]i64) (flags: [n]bool): [n]i64 = "
      "  (unzip (scan (\\(v1, f1) (v2, f2) -> (if f2 then v2 else v1 + v2, f1 || f2)) (0, false) (zip vals flags))).0 in "
      "let replicated_iota [n] (reps: [n]i64): []i64 = "
      "  let s1 = scan (+) 0 reps "
      "  let m = if n == 0 then 0 else s1[n - 1] "
      "  let starts = exscan reps "
      "  let tmp = reduce_by_index (replicate m 0) i64.max 0 (map2 (\\s r -> if r > 0 then s else -1) starts reps) (iota n) "
      "  in scan i64.max 0 tmp in "
      "let segmented_replicate [n] (reps: [n]i64) (vs: [n]i32): []i32 = map (\\i -> vs[i]) (replicated_iota reps) in "
      "let segmented_iota [n] (flags: [n]bool): [n]i64 = map (\\x -> x - 1) (sgm_scan_add (replicate n 1) flags) in "
      "let idxs_to_flags [n] (is: [n]i64): []bool = "
      "  let m = i64.sum is "
      "  let offsets = exscan is "
      "  let heads = map3 (\\i o s -> if i > 0 && s > 0 then o else -1) (iota n) offsets is "
      "  in scatter (replicate m false) heads (replicate n true) in ";
  auto run = [&](const std::string& e) { return eval_text(std::string(lib) + e); };
  CHECK(run("replicated_iota [2, 3, 1, 1]") == "[0i64, 0i64, 1i64, 1i64, 1i64, 2i64, 3i64]");
  CHECK(run("replicated_iota [0, 2]") == "[1i64, 1i64]");
  CHECK(run("replicated_iota [2, 0, 1]") == "[0i64, 0i64, 2i64]");
  CHECK(run("segmented_replicate [2, 1, 0, 3, 0] [5, 6, 9, 8, 4]") == "[5i32, 5i32, 6i32, 8i32, 8i32, 8i32]");
  CHECK(run("segmented_iota [false, false, false, true, false, false, false]") ==
        "[0i64, 1i64, 2i64, 0i64, 1i64, 2i64, 3i64]");
  CHECK(run("idxs_to_flags [2, 1, 3]") == "[false, false, true, true, false, false]");
  CHECK(run("idxs_to_flags [2, 0, 4]") == "[false, false, true, false, false, false]");
  CHECK(run("idxs_to_flags [2, 4]") == "[false, false, true, false, false, false]");
  CHECK(run("idxs_to_flags [0, 2]") == "[true, false]");
  CHECK(run("idxs_to_flags ([] : []i64)") == "empty([0]bool)");
  // map-iota flattened (R5) and map-replicate (R6).
  CHECK(run("segmented_iota (idxs_to_flags [2, 1, 3])") == "[0i64, 1i64, 0i64, 0i64, 1i64, 2i64]");
  CHECK(eval_text("map (replicate 2) [8, 5, 1]") == "[[8i32, 8i32], [5i32, 5i32], [1i32, 1i32]]");
}

TEST_CASE("longest streak and LSSP (notes-flattening, notes-scan)") {
  const char* streak =
      "let streak [n] (xs: [n]i32): i32 = "
      "  let ys = rotate 1 xs "
      "  let is = (map2 (\\x y -> if x < y then 1 else 0) xs ys)[0:n - 1] "
      "  let fs = map (== 0) is "
      "  let ss = (unzip (scan (\\(v1, f1) (v2, f2) -> (if f2 then v2 else v1 + v2, f1 || f2)) (0, false) (zip is fs))).0 "
      "  in reduce i32.max 0 ss in ";
  auto run = [&](const std::string& e) { return eval_text(std::string(streak) + e); };
  CHECK(run("streak [1, 5, 3, 4, 2, 6, 7, 8]") == "3i32");
  CHECK(run("streak [5]") == "0i32");
  CHECK(run("streak [1, 2, 3, 4]") == "3i32");
  CHECK(run("streak [4, 3, 2, 1]") == "0i32");
}
