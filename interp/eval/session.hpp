#pragma once
// A Session ties the pipeline together for the command-line tools: parse
// (interp/syntax) → check (interp/types) → evaluate (interp/eval). It owns
// the prelude (loaded once, at construction), the loaded program, and the
// REPL's declarations.
//
// Every user error is thrown as thorn::Error; a failing input or load leaves
// the session as it was.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/types/type.hpp"
#include "interp/util/error.hpp"
#include "interp/util/source.hpp"

namespace thorn {

struct SessionOptions {
  std::string backend = "reference";  // where SOACs run: reference (host and gpu when connected)
  bool validate = false;              // run offloaded nests on the reference backend too, and compare
  // Receives the host backend's plan listings (`:plan`, tests); see
  // Evaluator::on_plan. Null: not collected.
  std::function<void(const std::string&)> on_plan;
  // Where `#[trace]` lines ("prog.fut:3:5-12: [1, 2]", as Futhark's
  // interpreter writes them) go; null: stderr.
  std::function<void(const std::string& line)> trace;
};

class Session {
 public:
  // Loads the prelude (parse, check, evaluate). Throws Error when the
  // backend is not available in this build.
  explicit Session(SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Replaces the user program with this file (like `futhark repl`'s :load).
  // Imports are resolved relative to the importing file, ".fut" implied,
  // each file loaded once.
  void load_file(const std::string& path);
  // Loads the last file given to load_file again (after it changed on disk).
  void reload();
  // The file given to load_file last, if any.
  std::optional<std::string> loaded_file() const;

  // One REPL input: declarations join the session; an expression is checked
  // and evaluated.
  struct Outcome {
    bool is_expression = false;
    Value value;                       // the expression's value
    TypePtr type;                      // the expression's type
    std::vector<std::string> defined;  // names the declarations defined
    // The input's code, kept alive as long as the value may refer to it.
    std::shared_ptr<const void> keep;
  };
  Outcome eval_input(const std::string& text, const std::string& source_name = "[repl]");

  // The type of an expression, without evaluating it (`:type`);
  // unconstrained type variables stay polymorphic.
  TypePtr type_of(const std::string& text);

  // A top-level function (or constant) of the loaded program: its parameter
  // types and its result types (a tuple result gives one per component, as
  // `futhark run` prints them).
  struct Entry {
    std::string name;
    std::vector<TypePtr> params;
    std::vector<TypePtr> results;
    Loc loc;
  };
  std::optional<Entry> entry(const std::string& name) const;
  // The loaded file's entry points: its `entry` declarations and `main`.
  std::vector<std::string> entry_names() const;

  // Calls a top-level function of the loaded program; the results are split
  // like Entry::results.
  std::vector<Value> call(const std::string& name, std::vector<Value> args);

  // Names a REPL input could use here (for completion): with an empty
  // `module_path`, the values and modules in scope (prelude, loaded program,
  // declarations); otherwise the members of that module (`f32`, `M.N`).
  // Sorted, without operators.
  std::vector<std::string> names_in_scope(const std::vector<std::string>& module_path = {}) const;

  const SessionOptions& options() const;
  // Replaces the plan listener (SessionOptions::on_plan); null stops
  // collecting. Used by the REPL's :plan. [thorn wiring]
  void set_on_plan(std::function<void(const std::string&)> on_plan);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace thorn
