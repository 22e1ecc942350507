#include "interp/eval/loader.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "interp/syntax/parser.hpp"
#include "interp/util/error.hpp"

namespace thorn::eval {

namespace fs = std::filesystem;

ProgramLoader::ProgramLoader(Reader reader) : reader_(std::move(reader)) {}

std::optional<std::string> ProgramLoader::read_disk(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ProgramLoader::dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string ProgramLoader::resolve(const std::string& dir, const std::string& rel) {
  std::string file = rel;
  if (file.size() < 4 || file.substr(file.size() - 4) != ".fut") file += ".fut";
  if (!file.empty() && file[0] == '/') return fs::path(file).lexically_normal().string();
  std::string joined = dir.empty() ? file : dir + "/" + file;
  // Lexical normalisation keeps "[prelude]/x.fut" intact and makes one file
  // reached by two routes ("a/../b.fut", "b.fut") load once.
  return fs::path(joined).lexically_normal().string();
}

std::shared_ptr<Program> ProgramLoader::load(const std::string& path) {
  if (auto it = loaded_.find(path); it != loaded_.end()) return it->second;
  std::optional<std::string> text = reader_(path);
  if (!text) throw Error(ErrorKind::Usage, fmt::format("cannot read {}", path));
  in_progress_.insert(path);
  const SourceFile* file = register_source(path, std::move(*text));
  auto program = std::make_shared<Program>(parse_program(file));
  program->file = file;
  try {
    for (auto& d : program->decls) link_decl(*d, dir_of(path));
  } catch (...) {
    in_progress_.erase(path);
    throw;
  }
  in_progress_.erase(path);
  loaded_[path] = program;
  return program;
}

void ProgramLoader::link_imports(std::vector<DeclPtr>& decls, const std::string& dir) {
  for (auto& d : decls) link_decl(*d, dir);
}

std::shared_ptr<Program> ProgramLoader::import_file(const std::string& dir, const std::string& rel, const Loc& loc) {
  std::string path = resolve(dir, rel);
  if (in_progress_.count(path)) throw Error(ErrorKind::Type, loc, fmt::format("import cycle through \"{}\"", rel));
  if (auto it = loaded_.find(path); it != loaded_.end()) return it->second;
  try {
    return load(path);
  } catch (Error& e) {
    if (e.kind == ErrorKind::Usage && !e.loc.known())
      throw Error(ErrorKind::Type, loc, fmt::format("cannot import \"{}\": no file {}", rel, path));
    throw;
  }
}

void ProgramLoader::link_decl(Decl& d, const std::string& dir) {
  switch (d.kind) {
    case Decl::Kind::Import:
      if (!d.imported) d.imported = import_file(dir, d.path, d.loc);
      return;
    case Decl::Kind::Local:
      if (d.inner) link_decl(*d.inner, dir);
      return;
    case Decl::Kind::Module:
    case Decl::Kind::Open:
      if (d.module) link_module(*d.module, dir);
      return;
    default: return;
  }
}

void ProgramLoader::link_module(ModExpr& m, const std::string& dir) {
  switch (m.kind) {
    case ModExpr::Kind::Import:
      if (!m.imported) m.imported = import_file(dir, m.path, m.loc);
      return;
    case ModExpr::Kind::Struct:
      for (auto& d : m.decls) link_decl(*d, dir);
      return;
    default:
      if (m.fn) link_module(*m.fn, dir);
      if (m.arg) link_module(*m.arg, dir);
      return;
  }
}

}  // namespace thorn::eval
