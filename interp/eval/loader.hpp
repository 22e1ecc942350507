#pragma once
// Loading source files with their imports: parses a file, finds every
// `import "path"` (also `open import`, `module M = import`, inside modules
// and `local`), loads each imported file once (relative to the importing
// file, ".fut" implied) and links it into the AST (Decl::imported,
// ModExpr::imported) for the checker and the evaluator.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "interp/syntax/ast.hpp"

namespace thorn::eval {

class ProgramLoader {
 public:
  // Reads a file's text by its resolved path; nullopt when it does not exist.
  using Reader = std::function<std::optional<std::string>(const std::string& path)>;
  explicit ProgramLoader(Reader reader);

  // Loads `path` (already resolved) and what it imports.
  std::shared_ptr<Program> load(const std::string& path);
  // Resolves the imports of declarations that came from elsewhere (a REPL
  // input), relative to `dir`.
  void link_imports(std::vector<DeclPtr>& decls, const std::string& dir);

  // The import path `rel` (as written) seen from a file in directory `dir`.
  static std::string resolve(const std::string& dir, const std::string& rel);
  static std::string dir_of(const std::string& path);

  // Reads files from disk (the default for user programs).
  static std::optional<std::string> read_disk(const std::string& path);

 private:
  void link_decl(Decl& d, const std::string& dir);
  void link_module(ModExpr& m, const std::string& dir);
  std::shared_ptr<Program> import_file(const std::string& dir, const std::string& rel, const Loc& loc);

  Reader reader_;
  std::map<std::string, std::shared_ptr<Program>> loaded_;
  std::set<std::string> in_progress_;
};

}  // namespace thorn::eval
