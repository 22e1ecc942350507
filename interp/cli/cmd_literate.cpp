// thorn literate: like `futhark literate`. Turns a Futhark program into
// Markdown (prog.md): top-level comments become text, code becomes
// ```futhark blocks, and directives (-- > e, :img, :plot2d, :gnuplot,
// :video) are run on the chosen backend and replaced by their results;
// pictures and videos go to prog-img/.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include <fmt/format.h>

#include "interp/cli/commands.hpp"
#include "interp/cli/literate_blocks.hpp"
#include "interp/cli/literate_directives.hpp"
#include "interp/cli/session_setup.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kHelp =
    "Usage: thorn literate [options...] FILE\n"
    "\n"
    "Run the directives of FILE and write it as Markdown (FILE with .md for .fut),\n"
    "with pictures in a directory next to it (FILE-img/), as `futhark literate` does.\n"
    "Comments become text, code becomes ```futhark blocks, and each directive\n"
    "(-- > e, -- > :img e, :plot2d, :gnuplot, :video, with :brief or :covert)\n"
    "is replaced by its result. :plot2d and :gnuplot need gnuplot, :video ffmpeg.\n"
    "\n"
    "  -o, --output FILE    the Markdown file to write (its pictures go to FILE-img/)\n"
    "  --stop-on-error      stop at the first failing directive, writing nothing\n"
    "  -v, --verbose        say which directive runs, on stderr\n";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, fmt::format("cannot read {}", path));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What the reader sees of a directive before its result.
std::string prompt_of(const Directive& d) {
  if (d.covert) return "";
  if (d.brief) return "```\n" + d.short_text() + "\n```\n";
  return "```\n" + d.text + "```\n";
}

// Files of earlier runs that this run did not write again are stale.
void remove_stale_files(const LiterateContext& ctx) {
  std::error_code ec;
  if (!fs::is_directory(ctx.img_dir, ec)) return;
  for (const auto& entry : fs::directory_iterator(ctx.img_dir, ec))
    if (!ctx.written.count(entry.path().filename().string())) fs::remove_all(entry.path(), ec);
  if (fs::is_empty(ctx.img_dir, ec)) fs::remove(ctx.img_dir, ec);
}

}  // namespace

int cmd_literate(const Args& args_in) {
  ArgScanner args("literate", args_in);
  CommonOptions common;
  std::string output;
  bool stop_on_error = false;
  bool verbose = false;
  std::vector<std::string> files;
  while (args.next()) {
    if (args.is("-h", "--help")) {
      std::cout << kHelp << kCommonOptionsHelp;
      return 0;
    } else if (args.is("-o", "--output")) {
      output = args.value();
    } else if (args.is("", "--stop-on-error")) {
      args.no_value();
      stop_on_error = true;
    } else if (args.is("-v", "--verbose")) {
      args.no_value();
      verbose = true;
    } else if (take_common_option(args, common)) {
    } else if (args.positional()) {
      files.push_back(args.arg());
    } else {
      args.unknown();
    }
  }
  if (files.size() != 1) args.fail("expects exactly one program file");

#ifndef THORN_HAVE_SESSION
  (void)stop_on_error, (void)verbose;
  return evaluator_missing("literate");
#else
  const std::string& path = files[0];
  std::string source = read_file(path);
  std::vector<LiterateBlock> blocks = parse_literate(source, path);
  auto session = open_session(common);
  session->load_file(path);

  fs::path md_path = output.empty() ? fs::path(path).replace_extension(".md") : fs::path(output);
  LiterateContext ctx;
  ctx.session = session.get();
  ctx.program_path = path;
  ctx.program_hash = text_hash(source);
  ctx.img_link = md_path.stem().string() + "-img";
  ctx.img_dir = (md_path.parent_path() / ctx.img_link).string();

  std::string markdown;
  bool failed = false;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const LiterateBlock& b = blocks[i];
    std::string text;
    if (b.kind == LiterateBlock::Kind::Comment) {
      text = b.text;
    } else if (b.kind == LiterateBlock::Kind::Code) {
      if (!b.text.empty()) text = "```futhark\n" + b.text + "```\n";
    } else {
      const Directive& d = b.directive;
      if (verbose) std::cerr << fmt::format("Processing {}...\n", d.short_text());
      std::string prompt = prompt_of(d);
      try {
        text = prompt + "\n" + run_directive(ctx, d);
      } catch (const Error& e) {
        std::string why = e.kind == ErrorKind::Input && !e.loc.file ? e.message : e.render();
        std::cerr << fmt::format("{} failed:\n{}\n", d.short_text(), why);
        if (stop_on_error) return 1;
        failed = true;
        text = prompt + "\n**FAILED**\n```\n" + why + "\n```\n";
      }
    }
    markdown += (i ? "\n" : "") + text;
  }
  remove_stale_files(ctx);
  std::ofstream out(md_path, std::ios::binary);
  out << markdown;
  if (!out) throw Error(ErrorKind::Input, fmt::format("cannot write {}", md_path.string()));
  if (verbose) std::cerr << fmt::format("Wrote {}\n", md_path.string());
  return failed ? 1 : 0;
#endif
}

}  // namespace thorn::cli
