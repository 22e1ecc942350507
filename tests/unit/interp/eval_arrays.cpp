// Arrays: literals, indexing and slicing (views and copies), in-place
// updates, ranges, strings, and the error messages for bad indices.
#include "eval_test_util.hpp"

using thorn::test::eval_error;
using thorn::test::eval_text;

TEST_CASE("array literals and structural equality") {
  CHECK(eval_text("[1, 2, 3]") == "[1i32, 2i32, 3i32]");
  CHECK(eval_text("[[1, 2], [3, 4]]") == "[[1i32, 2i32], [3i32, 4i32]]");
  CHECK(eval_text("([] : []i32)") == "empty([0]i32)");
  CHECK(eval_text("([] : [][3]f32)") == "empty([0][3]f32)");
  CHECK(eval_text("[1, 2] == [1, 2]") == "true");
  CHECK(eval_text("[1, 2] == [1, 3]") == "false");
  CHECK(eval_text("[[1], [2]] == [[1], [2]]") == "true");
  CHECK(eval_text("(1, [true]) == (1, [true])") == "true");
  CHECK(eval_text("{a = 1, b = [2]} != {a = 1, b = [3]}") == "true");
  CHECK(eval_text("[f64.nan] == [f64.nan]") == "false");
  CHECK(eval_text("\"abc\"") == "[97u8, 98u8, 99u8]");
  CHECK(eval_text("\"\"") == "empty([0]u8)");
}

TEST_CASE("indexing") {
  CHECK(eval_text("[1, 2, 3][1]") == "2i32");
  CHECK(eval_text("[[1, 2], [3, 4]][1]") == "[3i32, 4i32]");
  CHECK(eval_text("[[1, 2], [3, 4]][1, 0]") == "3i32");
  CHECK(eval_text("[[1, 2], [3, 4]][1][0]") == "3i32");
  CHECK(eval_text("(zip [1, 2] [true, false])[1]") == "(2i32, false)");
  CHECK(eval_text("let xs = [(1, [1, 2]), (2, [3, 4])] in xs[1].1[0]") == "3i32");
}

TEST_CASE("slices with strides, negative strides and defaults") {
  CHECK(eval_text("[1, 2, 3, 4, 5][1:3]") == "[2i32, 3i32]");
  CHECK(eval_text("[1, 2, 3, 4, 5][:2]") == "[1i32, 2i32]");
  CHECK(eval_text("[1, 2, 3, 4, 5][3:]") == "[4i32, 5i32]");
  CHECK(eval_text("[1, 2, 3, 4, 5][::2]") == "[1i32, 3i32, 5i32]");
  CHECK(eval_text("[1, 2, 3, 4, 5][::-1]") == "[5i32, 4i32, 3i32, 2i32, 1i32]");
  CHECK(eval_text("[1, 2, 3, 4, 5][4:0:-2]") == "[5i32, 3i32]");
  CHECK(eval_text("[1, 2, 3, 4, 5][2:2]") == "empty([0]i32)");
  CHECK(eval_text("[[1, 2, 3], [4, 5, 6]][:, 1]") == "[2i32, 5i32]");
  CHECK(eval_text("[[1, 2, 3], [4, 5, 6]][1:, 1:]") == "[[5i32, 6i32]]");
  CHECK(eval_text("[[1, 2, 3], [4, 5, 6]][::-1, ::2]") == "[[4i32, 6i32], [1i32, 3i32]]");
  CHECK(eval_text("(zip [1, 2, 3] [4, 5, 6])[1:]") == "[(2i32, 5i32), (3i32, 6i32)]");
}

TEST_CASE("index errors use Futhark's wording") {
  CHECK(eval_error("[1, 2, 3][5]") == "Index [5] out of bounds for array of shape [3].");
  CHECK(eval_error("[1, 2, 3][-1]") == "Index [-1] out of bounds for array of shape [3].");
  CHECK(eval_error("[[1, 2], [3, 4]][0, 2]") == "Index [0, 2] out of bounds for array of shape [2][2].");
  CHECK(eval_error("[1, 2, 3][1:5]") == "Index [1:5] out of bounds for array of shape [3].");
  CHECK(eval_error("[1, 2, 3][2:1]") == "Index [2:1] out of bounds for array of shape [3].");
  CHECK(eval_error("[1, 2, 3][0:3:0]") == "Index [0:3:0] out of bounds for array of shape [3].");
  CHECK(eval_error("[1, 2, 3] with [3] = 0") == "Index [3] out of bounds for array of shape [3].");
}

TEST_CASE("in-place updates") {
  CHECK(eval_text("[1, 2, 3] with [1] = 10") == "[1i32, 10i32, 3i32]");
  CHECK(eval_text("[[1, 2], [3, 4]] with [1] = [7, 8]") == "[[1i32, 2i32], [7i32, 8i32]]");
  CHECK(eval_text("[[1, 2], [3, 4]] with [0, 1] = 9") == "[[1i32, 9i32], [3i32, 4i32]]");
  CHECK(eval_text("[1, 2, 3, 4] with [1:3] = [8, 9]") == "[1i32, 8i32, 9i32, 4i32]");
  CHECK(eval_text("[1, 2, 3, 4] with [::2] = [8, 9]") == "[8i32, 2i32, 9i32, 4i32]");
  CHECK(eval_text("(zip [1, 2] [3, 4]) with [0] = (5, 6)") == "[(5i32, 6i32), (2i32, 4i32)]");
  CHECK(eval_text("let xs = [1, 2, 3] let xs[0] = xs[2] + 1 in xs") == "[4i32, 2i32, 3i32]");
  // The updated array is a copy when something else still refers to it.
  CHECK(eval_text("let xs = [1, 2, 3] let ys = xs let zs = copy ys with [0] = 9 in (xs, zs)") ==
        "([1i32, 2i32, 3i32], [9i32, 2i32, 3i32])");
  CHECK(eval_text("let xs = [[1, 2], [3, 4]] let row = xs[0] let ys = copy xs with [0, 0] = 5 in (row, ys[0])") ==
        "([1i32, 2i32], [5i32, 2i32])");
  CHECK(eval_text("let r = {a = 1, b = {c = 2}} in r with b.c = 5") == "{a = 1i32, b = {c = 5i32}}");
  CHECK(eval_text("let t = (1, 2) in t with 1 = 7") == "(1i32, 7i32)");
}

TEST_CASE("loops update in place and see the right values") {
  CHECK(eval_text("loop xs = replicate 5 0 for i < 5 do xs with [i] = i * i") ==
        "[0i32, 1i32, 4i32, 9i32, 16i32]");
  CHECK(eval_text("let xs = iota 4 let ys = loop acc = copy xs for i < 4 do acc with [i] = 0 in (xs, ys)") ==
        "([0i64, 1i64, 2i64, 3i64], [0i64, 0i64, 0i64, 0i64])");
  CHECK(eval_text("loop (xs, n) = (replicate 3 0, 0) for i < 3 do (xs with [i] = n, n + 10)") ==
        "([0i32, 10i32, 20i32], 30i32)");
}

TEST_CASE("ranges") {
  CHECK(eval_text("1...5") == "[1i32, 2i32, 3i32, 4i32, 5i32]");
  CHECK(eval_text("1..<5") == "[1i32, 2i32, 3i32, 4i32]");
  CHECK(eval_text("5..>1") == "[5i32, 4i32, 3i32, 2i32]");
  CHECK(eval_text("0..2...7") == "[0i32, 2i32, 4i32, 6i32]");
  CHECK(eval_text("10..7...0") == "[10i32, 7i32, 4i32, 1i32]");
  CHECK(eval_text("1..3..<8") == "[1i32, 3i32, 5i32, 7i32]");
  CHECK(eval_text("5..3..>0") == "[5i32, 3i32, 1i32]");
  CHECK(eval_text("0i64..<0") == "empty([0]i64)");
  CHECK(eval_text("3u8...5") == "[3u8, 4u8, 5u8]");
  CHECK(eval_error("5...1") == "Range 5...1 is invalid.");
  CHECK(eval_error("1..<0") == "Range 1..<0 is invalid.");
  CHECK(eval_error("1..>2") == "Range 1..>2 is invalid.");
  CHECK(eval_error("1..1...5") == "Range 1..1...5 is invalid.");
  CHECK(eval_error("0..2..>5") == "Range 0..2..>5 is invalid.");
}
