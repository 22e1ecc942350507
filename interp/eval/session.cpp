#include "interp/eval/session.hpp"

#include <algorithm>

#include <exception>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "interp/core/value_io.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/loader.hpp"
#include "interp/exec/dispatch.hpp"
#include "interp/flatten/planner_cache.hpp"
#include "interp/util/big_stack.hpp"
#include "interp/util/resources.hpp"
#include "interp/syntax/parser.hpp"
#include "interp/types/checker.hpp"
#include "interp/types/scope_names.hpp"

namespace thorn {

extern const std::vector<std::pair<std::string_view, std::string_view>> kPreludeSources;

namespace {

// Evaluation recurses on the native stack (deeply nested expressions,
// functions calling functions); it runs on a thread with a large stack so
// that the evaluator's own depth limit, not a segfault, is what stops it.
constexpr size_t kEvalStackBytes = size_t(512) << 20;

void run_with_big_stack(const std::function<void()>& body) { run_on_big_stack(body, kEvalStackBytes); }

template <class F>
auto on_big_stack(F&& f) -> decltype(f()) {
  using R = decltype(f());
  if constexpr (std::is_void_v<R>) {
    run_with_big_stack(std::function<void()>(f));
  } else {
    std::optional<R> result;
    run_with_big_stack([&] { result.emplace(f()); });
    return std::move(*result);
  }
}

std::optional<std::string> read_prelude(const std::string& path) {
  const std::string prefix = "[prelude]/";
  if (path.rfind(prefix, 0) != 0) return std::nullopt;
  std::string name = path.substr(prefix.size());
  for (const auto& [file, text] : kPreludeSources)
    if (file == name) return std::string(text);
  return std::nullopt;
}

void collect_defined(const Decl& d, std::vector<std::string>& out) {
  switch (d.kind) {
    case Decl::Kind::Value:
    case Decl::Kind::Type:
    case Decl::Kind::Module:
    case Decl::Kind::ModuleType: out.push_back(d.name); return;
    case Decl::Kind::Local:
      if (d.inner) collect_defined(*d.inner, out);
      return;
    default: return;
  }
}

std::string cwd_dir() { return ""; }

// One REPL input's code: its AST and source file. The session holds it as
// long as it can reach it (declarations whose bindings point into it); plan
// cache entries made while it ran hold it too (planner_cache.hpp), since
// their keys name its nodes. When the last holder lets go, the AST is
// freed and the source file's slot released.
struct InputAnchor {
  explicit InputAnchor(const SourceFile* f) : file(f) {}
  ~InputAnchor() { release_source(file); }
  const SourceFile* file;
  std::shared_ptr<const void> ast;
};

// Sets the plan cache's code anchor for the duration of one evaluation.
struct AnchorScope {
  explicit AnchorScope(std::shared_ptr<const void> a) { flatten::plan_cache().set_anchor(std::move(a)); }
  ~AnchorScope() { flatten::plan_cache().set_anchor(nullptr); }
};

bool holds_function(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Function: return true;
    case Value::Kind::Tuple:
    case Value::Kind::Record:
    case Value::Kind::Sum:
      if (v.elems)
        for (const Value& e : *v.elems)
          if (holds_function(e)) return true;
      return false;
    case Value::Kind::Array:
      if (v.array && v.array->boxed)
        for (const Value& e : *v.array->boxed)
          if (holds_function(e)) return true;
      return false;
    default: return false;
  }
}

// Reads every buffer of a result once, so that a delayed array (host/GPU
// backends) is computed, and fails, inside the evaluation, where its errors
// get a location, rather than while the REPL prints it.
void materialise(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Array:
      if (!v.array) return;
      if (v.array->buffer) (void)v.array->buffer->host();
      for (const ArrayPtr& c : v.array->components) materialise(Value::make_array(c));
      return;
    case Value::Kind::Tuple:
    case Value::Kind::Record:
    case Value::Kind::Sum:
      if (v.elems)
        for (const Value& e : *v.elems) materialise(e);
      return;
    default: return;
  }
}

}  // namespace

struct Session::Impl {
  SessionOptions options;
  eval::Evaluator ev;
  Checker checker;
  Checker::State prelude_state;
  eval::EnvPtr prelude_env;
  eval::ProgramLoader prelude_loader{read_prelude};

  // The user's program and REPL declarations on top of the prelude.
  struct User {
    Checker::State checker_state;
    eval::ScopeBuilder scope;
    std::shared_ptr<eval::ProgramLoader> loader;
    std::shared_ptr<Program> program;
    std::string dir;  // where the REPL's imports are resolved
  };
  User user;
  std::optional<std::string> last_path;
  // Closures point into the AST: the prelude, loaded files and REPL
  // declarations the session may still reach stay alive (InputAnchor).
  std::vector<std::shared_ptr<const void>> keep_alive;

  explicit Impl(SessionOptions o) : options(std::move(o)), ev(eval::EvalOptions{options.backend, options.validate}) {}

  User fresh_user() {
    User u;
    u.checker_state = prelude_state;
    u.scope.outer = prelude_env;
    u.loader = std::make_shared<eval::ProgramLoader>(eval::ProgramLoader::read_disk);
    u.dir = cwd_dir();
    return u;
  }

  void load_prelude() {
    std::shared_ptr<Program> root = prelude_loader.load("[prelude]/prelude.fut");
    keep_alive.push_back(root);
    checker.check_decls(root->decls);
    eval::ScopeBuilder scope;
    for (const auto& d : root->decls) ev.eval_decl(*d, scope, nullptr);
    prelude_env = scope.env();
    ev.prelude_env = prelude_env;
    checker.mark_prelude();
    prelude_state = checker.save();
    user = fresh_user();
  }

  const eval::Binding* user_binding(const std::string& name) const {
    auto it = user.scope.visible->values.find(name);
    return it == user.scope.visible->values.end() ? nullptr : &it->second;
  }

  // Evaluates declarations into a copy of the user scope; commits only when
  // all of them succeed.
  void eval_decls(std::vector<DeclPtr>& decls, User& target) {
    eval::ScopeBuilder scope = target.scope;
    for (const auto& d : decls) ev.eval_decl(*d, scope, nullptr);
    target.scope = scope;
  }
};

Session::Session(SessionOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  if (!exec::backend_available(impl_->options.backend))
    throw Error(ErrorKind::Usage, fmt::format("the {} backend is not available in this build", impl_->options.backend));
  // Trace output and messages print values as Futhark's interpreter does:
  // without type suffixes (`[1, 2]`, `2.5`).
  impl_->ev.format_value = [](const Value& v, const TypePtr& t) { return format_value(v, t, ValueStyle::Repl); };
  if (impl_->options.trace) {
    auto sink = impl_->options.trace;
    eval::Evaluator& ev = impl_->ev;
    ev.on_trace = [sink, &ev](const std::string& where, const Value& v, const TypePtr& t) {
      sink(where + ": " + ev.format_value(v, t));
    };
  }
  impl_->ev.on_plan = impl_->options.on_plan;  // the host backend's plan listings
  on_big_stack([&] { impl_->load_prelude(); });
}

Session::~Session() = default;

const SessionOptions& Session::options() const { return impl_->options; }

std::vector<std::string> Session::names_in_scope(const std::vector<std::string>& module_path) const {
  return types::names_in_scope(impl_->checker.save(), module_path);
}

void Session::set_on_plan(std::function<void(const std::string&)> on_plan) {
  impl_->options.on_plan = on_plan;
  impl_->ev.on_plan = std::move(on_plan);
}

std::optional<std::string> Session::loaded_file() const { return impl_->last_path; }

void Session::load_file(const std::string& path) {
  Impl& s = *impl_;
  s.last_path = path;
  Impl::User u = s.fresh_user();
  Checker::State before = s.checker.save();
  try {
    on_big_stack([&] {
      s.checker.restore(s.prelude_state);
      u.program = u.loader->load(eval::ProgramLoader::resolve("", path));
      s.keep_alive.push_back(u.program);
      s.checker.check_decls(u.program->decls);
      s.eval_decls(u.program->decls, u);
    });
  } catch (...) {
    s.checker.restore(before);
    throw;
  }
  u.dir = eval::ProgramLoader::dir_of(path);
  u.checker_state = s.checker.save();
  s.user = std::move(u);
}

void Session::reload() {
  if (!impl_->last_path) throw Error(ErrorKind::Usage, "no file has been loaded");
  load_file(*impl_->last_path);
}

Session::Outcome Session::eval_input(const std::string& text, const std::string& source_name) {
  Impl& s = *impl_;
  auto anchor = std::make_shared<InputAnchor>(register_source(source_name, text));
  const SourceFile* file = anchor->file;
  Checker::State before = s.checker.save();
  Outcome out;
  Loc where;  // the whole input, for errors raised where no call is known
  where.file = file;
  where.line = 1;
  where.col = 1;
  try {
    AnchorScope scope(anchor);
    s.ev.pending_call = nullptr;  // left over from an interrupted call
    s.ev.pending_callee = nullptr;
    s.ev.pending_call_ctx = {};
    on_big_stack([&] {
      ReplInput input = parse_repl_input(file);
      if (!input.decls.empty()) {
        auto decls = std::make_shared<std::vector<DeclPtr>>(std::move(input.decls));
        anchor->ast = decls;
        s.user.loader->link_imports(*decls, s.user.dir);
        s.checker.check_decls(*decls);
        s.eval_decls(*decls, s.user);
        for (const auto& d : *decls) collect_defined(*d, out.defined);
        // Plain values (`let x = e`, no parameters, not polymorphic, no
        // function inside) keep nothing of their AST: it is freed once no
        // plan refers to it. Anything else stays as long as the session.
        bool plain = true;
        for (const auto& d : *decls) {
          if (d->kind != Decl::Kind::Value || !d->params.empty() || !d->type_params.empty()) {
            plain = false;
            continue;
          }
          const eval::Binding* b = s.user_binding(d->name);
          plain = plain && b && !b->lazy && !b->quantified && !holds_function(b->value);
        }
        if (!plain) s.keep_alive.push_back(anchor);
        return;
      }
      ExprPtr e = input.expr;
      anchor->ast = e;
      if (e) where = e->loc;
      out.type = s.checker.check_expression(e);
      out.is_expression = true;
      out.value = s.ev.eval(*e, eval::Ctx{s.user.scope.env(), nullptr});
      materialise(out.value);
    });
  } catch (OutOfMemory& e) {
    s.checker.restore(before);
    if (!e.loc.known()) e.loc = where;
    throw;
  } catch (const std::bad_alloc&) {
    s.checker.restore(before);
    throw out_of_memory_error(where);
  } catch (...) {
    s.checker.restore(before);
    throw;
  }
  if (out.is_expression) s.checker.restore(before);  // an expression defines nothing
  s.user.checker_state = s.checker.save();
  out.keep = anchor;  // the value may hold closures over the input's AST
  return out;
}

TypePtr Session::type_of(const std::string& text) {
  Impl& s = *impl_;
  auto anchor = std::make_shared<InputAnchor>(register_source("[type]", text));
  Checker::State before = s.checker.save();
  TypePtr t;
  try {
    ExprPtr e = parse_expression(anchor->file);
    anchor->ast = e;
    t = s.checker.check_expression(e, /*generalise=*/true);
  } catch (...) {
    s.checker.restore(before);
    throw;
  }
  s.checker.restore(before);
  return t;
}

namespace {
int param_count_of(const eval::Binding& b) {
  if (b.value.kind == Value::Kind::Function && b.value.fn->kind == Callable::Kind::Closure)
    return int(b.value.fn->params->size());
  return 0;
}

// An entry point takes as many arguments as its type has arrows: entry
// points are first-order, so a point-free `entry f = map2 f32.max` takes two.
int arrow_count(TypePtr t) {
  int n = 0;
  for (; t && t->kind == Type::Kind::Function; t = t->result) ++n;
  return n;
}
}  // namespace

std::optional<Session::Entry> Session::entry(const std::string& name) const {
  const eval::Binding* b = impl_->user_binding(name);
  if (!b) return std::nullopt;
  QualName qn;
  qn.name = name;
  TypePtr t = impl_->checker.lookup_value(qn);
  if (!t) return std::nullopt;
  Entry e;
  e.name = name;
  int n = std::max(param_count_of(*b), arrow_count(t));
  for (int k = 0; k < n && t && t->kind == Type::Kind::Function; ++k) {
    e.params.push_back(t->param);
    t = t->result;
  }
  if (t && t->kind == Type::Kind::Tuple) {
    e.results = t->elems;
  } else if (t) {
    e.results.push_back(t);
  }
  if (b->value.kind == Value::Kind::Function) e.loc = b->value.fn->loc;
  return e;
}

std::vector<std::string> Session::entry_names() const {
  std::vector<std::string> names;
  const auto& program = impl_->user.program;
  if (!program) return names;
  std::function<void(const Decl&)> visit = [&](const Decl& d) {
    // Like Futhark (Compiler/Program.hs, setEntryPoints): `main` in the
    // root file is an entry point beside the `entry` declarations.
    if (d.kind == Decl::Kind::Value && (d.entry || d.name == "main") &&
        std::find(names.begin(), names.end(), d.name) == names.end())
      names.push_back(d.name);
  };
  for (const auto& d : program->decls) visit(*d);
  return names;
}

std::vector<Value> Session::call(const std::string& name, std::vector<Value> args) {
  Impl& s = *impl_;
  const eval::Binding* b = s.user_binding(name);
  if (!b) throw Error(ErrorKind::Usage, fmt::format("no top-level definition named {}", name));
  QualName qn;
  qn.name = name;
  int n = std::max(param_count_of(*b), arrow_count(s.checker.lookup_value(qn)));
  if (int(args.size()) != n)
    throw Error(ErrorKind::Usage, fmt::format("{} takes {} argument{}, but was given {}", name, n, n == 1 ? "" : "s",
                                              args.size()));
  Value fn = b->value;
  Loc loc = fn.kind == Value::Kind::Function ? fn.fn->loc : Loc{};
  Value result;
  try {
    result = on_big_stack([&]() -> Value {
    if (b->lazy) {
      Value v = s.ev.eval(*b->lazy->body, eval::Ctx{b->lazy_env, b->lazy_tenv});
      if (n == 0) return v;
      fn = std::move(v);  // a point-free entry point: its value is the function
    }
    // Computed, not delayed: a fused map's run-time errors (an index out
    // of bounds) are the call's, as in Futhark, whether or not anyone
    // reads the result.
    Value r = n == 0 ? fn : s.ev.apply(fn, std::move(args), loc);
    materialise(r);
    return r;
    });
  } catch (OutOfMemory& e) {
    if (!e.loc.known()) e.loc = loc;
    throw;
  } catch (const std::bad_alloc&) {
    throw out_of_memory_error(loc);
  } catch (Error& e) {
    // An argument whose shape its parameter's sizes reject is reported at
    // the entry point itself; say so as a compiled Futhark program does.
    if (e.kind == ErrorKind::Runtime && e.loc.known() && e.loc.file == loc.file && e.loc.line == loc.line &&
        e.loc.col == loc.col && e.message.rfind("Size mismatch", 0) == 0)
      e.message = "Error: entry point arguments have invalid sizes. " + e.message;
    throw;
  }
  std::vector<Value> out;
  if (result.kind == Value::Kind::Tuple) {
    for (const auto& v : *result.elems) out.push_back(v);
  } else {
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace thorn
