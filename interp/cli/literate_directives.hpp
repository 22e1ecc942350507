#pragma once
// Running one directive of `thorn literate` and writing its result as
// Markdown, as `futhark literate` does: a value in a ``` block, a picture
// (:img, :plot2d, :gnuplot) or a video (:video) as a file in the image
// directory and a Markdown image link to it.
#include <set>
#include <string>

#include "interp/cli/literate_blocks.hpp"
#include "interp/cli/session_setup.hpp"

#ifdef THORN_HAVE_SESSION

namespace thorn::cli {

struct LiterateContext {
  Session* session = nullptr;
  std::string program_path;    // for the names of directive inputs in error messages
  std::string program_hash;    // names files: the same directive of the same program, the same file
  std::string img_dir;         // where files are written
  std::string img_link;        // how the Markdown names that directory ("prog-img")
  std::set<std::string> written;  // file names written into img_dir by this run
};

// The Markdown of the directive's result (without the directive itself);
// throws Error when evaluating it or making its file fails.
std::string run_directive(LiterateContext& ctx, const Directive& d);

// A short hexadecimal hash of `text` (FNV-1a), for file names.
std::string text_hash(const std::string& text);

}  // namespace thorn::cli

#endif
