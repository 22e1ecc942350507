// thorn literate end to end, in-process: the Markdown it writes for every
// directive kind, and the pictures (valid PNGs of the right size, read
// back with libpng). :plot2d, :gnuplot and :video need gnuplot and ffmpeg;
// where those are missing the directives must fail with a message naming
// the program, and the run must say it failed.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "interp/cli/commands.hpp"
#include "interp/cli/external_program.hpp"
#include "interp/cli/literate_blocks.hpp"
#include "interp/cli/png_file.hpp"
#include "interp/cli/repl.hpp"
#include "interp/util/error.hpp"

using namespace thorn;
using namespace thorn::cli;
namespace fs = std::filesystem;

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

Result run_literate(Args args) {
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  Result r;
  try {
    r.status = cmd_literate(args);
  } catch (const Error& e) {
    r.status = e.kind == ErrorKind::Usage ? 2 : 1;
    r.err = e.render();
  }
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  r.out = out.str();
  r.err += err.str();
  return r;
}

// A directory holding prog.fut, removed afterwards.
struct Workspace {
  explicit Workspace(const std::string& program) {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("thorn_literate_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir);
    std::ofstream(dir / "prog.fut") << program;
  }
  ~Workspace() { fs::remove_all(dir); }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string read(const std::string& name) const {
    std::ifstream in(dir / name);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  fs::path dir;
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The file name of the n-th image link "![](prog-img/NAME)" in `md`.
std::string nth_image(const std::string& md, int n) {
  size_t at = 0;
  for (int k = 0; k <= n; ++k) {
    at = md.find("![](prog-img/", at);
    if (at == std::string::npos) return "";
    at += 13;
  }
  return md.substr(at, md.find(')', at) - at);
}

// A GIF's logical screen size: two little-endian 16-bit numbers after "GIF89a".
std::pair<int, int> gif_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char h[10] = {};
  in.read(reinterpret_cast<char*>(h), 10);
  if (std::string(reinterpret_cast<char*>(h), 3) != "GIF") return {-1, -1};
  return {h[6] | h[7] << 8, h[8] | h[9] << 8};
}

const char* kEveryDirective = R"(-- # Title
--
-- Text with `code`.

def twice (x: i32) : i32 = x * 2
def plus (a: i32) (b: i32) : i32 = a + b

entry grey (h: i64) (w: i64) : [h][w]f32 = tabulate_2d h w (\i j -> f32.i64 (i + j) / f32.i64 (h + w))
entry argb (h: i64) (w: i64) : [h][w]u32 = tabulate_2d h w (\i j -> 0xFF000000 | (u32.i64 i << 8) | u32.i64 j)
entry checks (n: i64) : [n][n]bool = tabulate_2d n n (\i j -> (i + j) % 2 == 0)
entry levels (n: i64) : [n][2 * n]u8 = tabulate_2d n (2 * n) (\i j -> u8.i64 (i * j))
entry xy (n: i64) : ([n]f64, [n]f64) = (map f64.i64 (iota n), map (\i -> f64.i64 (i * i)) (iota n))
entry frames (n: i64) : [n][4][6]u8 = tabulate_3d n 4 6 (\k i j -> u8.i64 (k * 40 + i + j))
def step (h: i64) (k: i64) : ([h][5]u8, i64) = (tabulate_2d h 5 (\i j -> u8.i64 (k * 50 + i + j)), k + 1)

-- > twice 21

-- > let (a, b) = (twice 1, twice 2) in (a, b)

-- > :img grey 3i64 5i64

-- > :img argb 4i64 7i64;
-- file: argb.png

-- > :brief :img checks 8i64;
-- file: checks.png

-- > :img levels 2i64

-- > :covert twice 5

-- > {xs = [1, 2], n = 3i64}

-- > plus (twice 1, 3)

-- > empty([0]i32)

-- > :plot2d xy 10i64;
-- size: (300,200)

-- > :plot2d {a = xy 5i64, b = xy 6i64}

-- > :gnuplot {data = xy 10i64};
-- plot data with lines

-- > :video frames 3i64;
-- fps: 2
-- format: gif

-- > :video (step 3i64, 0i64, 4i64);
-- format: gif
-- file: steps.gif
)";

}  // namespace

TEST_CASE("literate blocks: comments, code, test blocks and directives with parameters") {
  auto blocks = parse_literate("-- text\n--\n\ndef x = 1\n\n-- > :brief :img f 1;\n-- file: a.png\n\n-- ==\n-- input { 1 }\n",
                               "p.fut");
  REQUIRE(blocks.size() == 5);
  CHECK(blocks[0].kind == LiterateBlock::Kind::Comment);
  CHECK(blocks[0].text == "text\n\n");
  CHECK(blocks[1].text == "def x = 1\n");
  const Directive& d = blocks[2].directive;
  CHECK(d.kind == Directive::Kind::Img);
  CHECK(d.brief);
  CHECK(d.expr == "f 1");
  CHECK(d.param("file") == "a.png");
  CHECK(d.text == "> :brief :img f 1;\nfile: a.png\n");
  CHECK(d.short_text() == "> :img f 1");
  CHECK(blocks[3].text.empty());  // the blank line between
  CHECK(blocks[4].text == "-- ==\n-- input { 1 }\n");
  CHECK_THROWS_AS(parse_literate("-- > :nonsense x\n", "p.fut"), Error);
}

TEST_CASE("thorn literate writes Markdown and PNG pictures for every directive kind") {
  Workspace w(kEveryDirective);
  Result r = run_literate({"--backend", "host", w.path("prog.fut")});
  std::string md = w.read("prog.md");
  INFO(r.err);
  INFO(md);

  // Text, then code.
  CHECK(md.rfind("# Title\n\nText with `code`.\n\n```futhark\ndef twice (x: i32) : i32 = x * 2\ndef plus", 0) == 0);
  // Values, as futhark literate shows them.
  CHECK(contains(md, "\n```\n> twice 21\n```\n\n```\n42i32\n```\n"));
  CHECK(contains(md, "```\n> let (a, b) = (twice 1, twice 2) in (a, b)\n```\n\n```\n(2i32, 4i32)\n```\n"));
  CHECK(contains(md, "```\n{n=3i64, xs=[1i32, 2i32]}\n```\n"));
  CHECK(contains(md, "```\n> plus (twice 1, 3)\n```\n\n```\n5i32\n```\n"));  // uncurried
  CHECK(contains(md, "```\nempty([0]i32)\n```\n"));
  // :covert shows only the result; :brief the directive without parameters.
  CHECK(contains(md, "\n```\n10i32\n```\n"));
  CHECK_FALSE(contains(md, "twice 5"));
  CHECK(contains(md, "```\n> :img checks 8i64\n```\n\n![](prog-img/checks.png)\n"));
  CHECK_FALSE(contains(md, "file: checks.png"));
  CHECK(contains(md, "```\n> :img argb 4i64 7i64;\nfile: argb.png\n```\n\n![](prog-img/argb.png)\n"));

  // The pictures: the first :img is named by hash, the others by file:.
  std::string grey = nth_image(md, 0);
  CHECK(grey.size() == 16 + 8);  // <hash>-img.png
  auto size_of = [&](const std::string& name) { return read_png_size(w.path("prog-img/" + name)); };
  CHECK(size_of(grey).width == 5);
  CHECK(size_of(grey).height == 3);
  CHECK(size_of("argb.png").width == 7);
  CHECK(size_of("argb.png").height == 4);
  CHECK(size_of("checks.png").width == 8);
  CHECK(size_of(nth_image(md, 3)).width == 4);  // levels 2: [2][4]u8
  CHECK(size_of(nth_image(md, 3)).height == 2);

  bool gnuplot = !find_program("gnuplot").empty(), ffmpeg = !find_program("ffmpeg").empty();
  if (gnuplot) {
    CHECK(size_of(nth_image(md, 4)).width == 300);
    CHECK(size_of(nth_image(md, 4)).height == 200);
    CHECK(size_of(nth_image(md, 5)).width == 500);
    CHECK(size_of(nth_image(md, 6)).width > 0);
  } else {
    CHECK(contains(md, "```\n> :plot2d xy 10i64;\nsize: (300,200)\n```\n\n**FAILED**\n```\ngnuplot is not installed"));
    CHECK(contains(r.err, "> :gnuplot {data = xy 10i64} failed:\ngnuplot is not installed (needed by :gnuplot)"));
  }
  if (ffmpeg) {
    CHECK(gif_size(w.path("prog-img/" + nth_image(md, 7))) == std::pair<int, int>(6, 4));
    CHECK(gif_size(w.path("prog-img/steps.gif")) == std::pair<int, int>(5, 3));
  } else {
    CHECK(contains(md, "**FAILED**\n```\nffmpeg is not installed (needed by :video)"));
  }
  CHECK(r.status == (gnuplot && ffmpeg ? 0 : 1));
}

TEST_CASE("thorn literate: failing directives, --stop-on-error, --output and stale files") {
  Workspace w("def f (x: i32) = x\n\n-- > f 1.5f32\n\n-- > $loaddata \"x.in\"\n\n-- > :img f 1\n");
  Result r = run_literate({w.path("prog.fut")});
  CHECK(r.status == 1);
  std::string md = w.read("prog.md");
  CHECK(contains(md, "```\n> f 1.5f32\n```\n\n**FAILED**\n```\n"));
  CHECK(contains(md, "cannot read data file"));
  CHECK(contains(md, "cannot make an image of a value that is not an array of numbers"));
  CHECK(contains(r.err, "> f 1.5f32 failed:\n"));

  fs::remove(w.dir / "prog.md");
  r = run_literate({"--stop-on-error", w.path("prog.fut")});
  CHECK(r.status == 1);
  CHECK_FALSE(fs::exists(w.dir / "prog.md"));

  // --output puts the Markdown and its pictures elsewhere; files of an
  // earlier run that this one did not write are removed.
  std::ofstream(w.dir / "prog.fut") << "-- > :img [[true, false]]\n";
  fs::create_directories(w.dir / "out" / "doc-img");
  std::ofstream(w.dir / "out" / "doc-img" / "stale.png") << "x";
  r = run_literate({"-o", w.path("out/doc.md"), w.path("prog.fut")});
  CHECK(r.status == 0);
  md = w.read("out/doc.md");
  CHECK(contains(md, "![](doc-img/"));
  CHECK_FALSE(fs::exists(w.dir / "out" / "doc-img" / "stale.png"));
  CHECK(r.err.empty());
}

TEST_CASE("the REPL's :img writes a PNG") {
  Workspace w("");
  std::istringstream in(":img " + w.path("r.png") + " tabulate_2d 3 4 (\\i j -> f64.i64 (i + j) / 6)\n:img\n");
  std::ostringstream out;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  Repl(CommonOptions{}, in).run(std::nullopt);
  std::cout.rdbuf(old_out);
  CHECK(contains(out.str(), "(4x3)"));
  CHECK(contains(out.str(), "Usage: :img FILE EXPR"));
  CHECK(read_png_size(w.path("r.png")).width == 4);
  CHECK(read_png_size(w.path("r.png")).height == 3);
}
