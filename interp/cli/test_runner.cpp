#include "interp/cli/test_runner.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "interp/cli/entry_points.hpp"
#include "interp/cli/futhark_script.hpp"
#include "interp/cli/random_values.hpp"
#include "interp/eval/user_params.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {


bool error_matches(const std::string& regex, const std::string& text) {
  if (regex.empty()) return true;
  std::regex re;
  try {
    re = std::regex(regex, std::regex::extended);
  } catch (const std::regex_error&) {
    try {
      re = std::regex(regex);  // ECMAScript accepts some things ERE does not (\d)
    } catch (const std::regex_error&) {
      throw Error(ErrorKind::Input, fmt::format("invalid regular expression '{}'", regex));
    }
  }
  return std::regex_search(text, re);
}

#ifndef THORN_HAVE_SESSION

std::vector<CaseResult> run_program_tests(const std::string& path, const TestOptions&) {
  CaseResult r;
  r.file = path;
  r.status = CaseResult::Status::Failed;
  r.message = "this build has no evaluator (interp/eval/session.hpp is missing)";
  return {r};
}

#else

namespace {

using Clock = std::chrono::steady_clock;

// Futhark programs report run-time errors as "Error: <message>", and test
// blocks are written against that (the manual's example is `error: Error*`),
// so a regex may match that form, the bare message, or the full rendering.
bool error_matches_any(const std::string& regex, const Error& e) {
  return error_matches(regex, e.message) || error_matches(regex, "Error: " + e.message) ||
         error_matches(regex, e.render());
}

// Does a generated value have the parameter's type?
bool fits(const ValueType& v, const Type& t) {
  switch (t.kind) {
    case Type::Kind::Param: return true;
    case Type::Kind::Prim: return v.shape.empty() && v.prim == t.prim;
    case Type::Kind::Array: {
      if (!t.elem || v.shape.size() != t.dims.size()) return false;
      if (t.elem->kind != Type::Kind::Param && (t.elem->kind != Type::Kind::Prim || t.elem->prim != v.prim))
        return false;
      for (size_t k = 0; k < t.dims.size(); ++k)
        if (t.dims[k].kind == Dim::Kind::Constant && t.dims[k].value != v.shape[k]) return false;
      return true;
    }
    default: return false;
  }
}

class ProgramRunner {
 public:
  ProgramRunner(const std::string& path, const TestOptions& options)
      : path_(path), dir_(std::filesystem::path(path).parent_path().string()), options_(options) {}

  std::vector<CaseResult> run() {
    std::string text;
    try {
      text = read_data_file(path_);
    } catch (const Error& e) {
      return {whole(CaseResult::Status::Failed, e.message)};
    }
    std::optional<ProgramTest> spec;
    try {
      spec = parse_test_spec(register_source(path_, text));
    } catch (const Error& e) {
      return {whole(CaseResult::Status::Failed, e.render())};
    }
    if (!spec) return {};
    if (spec->has_tag("disable")) return {whole(CaseResult::Status::Skipped, "tagged disable")};

    // The program's tuning file, as `futhark test` passes it: user
    // parameters (`#[param(name)] e`) for this program's cases only.
    std::string tuning = path_ + ".tuning";
    eval::UserParams params;
    try {
      if (std::filesystem::exists(tuning)) params = eval::read_tuning_file(tuning);
    } catch (const Error& e) {
      return {whole(CaseResult::Status::Failed, e.render())};
    }
    struct Scoped {
      explicit Scoped(eval::UserParams p) { eval::set_user_params(std::move(p)); }
      ~Scoped() { eval::set_user_params({}); }
    } scoped_params(std::move(params));
    auto start = Clock::now();
    CommonOptions common = options_.common;
    try {
      session_ = open_session(common);
      session_->load_file(path_);
    } catch (const Error& e) {
      CaseResult r = whole(CaseResult::Status::Failed, e.render());
      if (spec->expects_compile_error) {
        bool compile_time = e.kind == ErrorKind::Syntax || e.kind == ErrorKind::Type;
        if (compile_time && error_matches_any(spec->compile_error_regex, e)) {
          r.status = CaseResult::Status::Passed;
          r.message.clear();
        } else if (compile_time) {
          r.message = fmt::format("the type error does not match /{}/:\n{}", spec->compile_error_regex, e.render());
        }
      }
      r.seconds = seconds_since(start);
      return {r};
    }
    if (spec->expects_compile_error) {
      CaseResult r = whole(CaseResult::Status::Failed,
                           spec->compile_error_regex.empty()
                               ? "expected a type error, but the program type-checks"
                               : fmt::format("expected a type error matching /{}/, but the program type-checks",
                                             spec->compile_error_regex));
      r.seconds = seconds_since(start);
      return {r};
    }

    std::vector<CaseResult> results;
    for (const InputOutputs& io : spec->cases)
      for (const std::string& entry : io.entries)
        for (const TestRun& run : io.runs) results.push_back(run_case(entry, run));
    for (const std::string& p : spec->properties) {
      CaseResult r = whole(CaseResult::Status::Skipped, "property tests are not supported yet");
      r.entry = p;
      results.push_back(r);
    }
    return results;
  }

 private:
  static double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  CaseResult whole(CaseResult::Status status, std::string message) const {
    CaseResult r;
    r.file = path_;
    r.status = status;
    r.message = std::move(message);
    return r;
  }

  std::string data_path(const std::string& file) const {
    return dir_.empty() ? file : (std::filesystem::path(dir_) / file).string();
  }

  CaseResult run_case(const std::string& entry_name, const TestRun& run) {
    CaseResult r;
    r.file = path_;
    r.entry = entry_name;
    r.dataset = run.name;
    auto start = Clock::now();
    auto finish = [&](CaseResult::Status status, std::string message) {
      r.status = status;
      r.message = std::move(message);
      r.seconds = seconds_since(start);
      return r;
    };

    for (const std::string& tag : run.tags)
      if (tag == "disable" || tag == "notest" || tag == "no_" + options_.common.backend)
        return finish(CaseResult::Status::Skipped, fmt::format("tagged {}", tag));
    auto entry = session_->entry(entry_name);
    if (!entry) return finish(CaseResult::Status::Failed, unknown_entry_message(*session_, path_, entry_name));

    std::vector<Value> args;
    try {
      args = input_values(run.input, *entry);
    } catch (const Error& e) {
      // An argument of sizes the entry point does not accept makes a
      // compiled Futhark program fail when it starts: a case expecting an
      // error gets one (Futhark's shapes/inference6).
      if (run.expected.kind == ExpectedResult::Kind::Error && error_matches_any(run.expected.error_regex, e))
        return finish(CaseResult::Status::Passed, "");
      return finish(CaseResult::Status::Failed, e.render());
    }

    std::vector<Value> got;
    try {
      got = session_->call(entry_name, args);
    } catch (const Error& e) {
      if (run.expected.kind != ExpectedResult::Kind::Error) return finish(CaseResult::Status::Failed, e.render());
      if (error_matches_any(run.expected.error_regex, e))
        return finish(CaseResult::Status::Passed, "");
      return finish(CaseResult::Status::Failed,
                    fmt::format("the error does not match /{}/:\n{}", run.expected.error_regex, e.render()));
    }

    try {
      switch (run.expected.kind) {
        case ExpectedResult::Kind::Success: return finish(CaseResult::Status::Passed, "");
        case ExpectedResult::Kind::Error:
          return finish(CaseResult::Status::Failed,
                        run.expected.error_regex.empty()
                            ? "expected an error, but the program succeeded"
                            : fmt::format("expected an error matching /{}/, but the program succeeded",
                                          run.expected.error_regex));
        case ExpectedResult::Kind::Values:
        case ExpectedResult::Kind::File: {
          std::vector<Value> expected = expected_values(run.expected, *entry);
          if (auto mismatch = compare_values(got, expected, options_.tolerance))
            return finish(CaseResult::Status::Failed, *mismatch);
          return finish(CaseResult::Status::Passed, "");
        }
        case ExpectedResult::Kind::Auto: {
          // The expected output is the reference backend's; with the
          // reference backend the run itself is that output.
          if (options_.common.backend == "reference") return finish(CaseResult::Status::Passed, "");
          std::vector<Value> expected = reference().call(entry_name, args);
          if (auto mismatch = compare_values(got, expected, options_.tolerance))
            return finish(CaseResult::Status::Failed, *mismatch + " (compared with the reference backend)");
          return finish(CaseResult::Status::Passed, "");
        }
      }
    } catch (const Error& e) {
      return finish(CaseResult::Status::Failed, e.render());
    }
    return finish(CaseResult::Status::Passed, "");
  }

  // A `script input`: the FutharkScript expression (or the file holding it)
  // evaluated in the program's session. Its value is the argument, or, as
  // Futhark's scriptValueAsVars does, a tuple of as many components as the
  // entry point has parameters is spread over them.
  std::vector<Value> script_arguments(const TestInput& in, const Session::Entry& entry) {
    std::string script = in.values.text;
    std::string source = fmt::format("[script input at {}]", path_);
    if (!in.file.empty()) {
      source = data_path(in.file);
      script = read_data_file(source);
    }
    Session::Outcome out = eval_script(*session_, script, dir_, source);
    if (!out.is_expression) throw Error(ErrorKind::Input, "a script input must be an expression");
    size_t arity = entry.params.size();
    if (arity >= 2 && out.value.kind == Value::Kind::Tuple && out.value.elems && out.value.elems->size() == arity)
      return *out.value.elems;
    if (arity == 1) return {out.value};
    throw Error(ErrorKind::Input,
                fmt::format("the script input gives one value, but {} takes {} arguments", entry.name, arity));
  }

  std::vector<Value> input_values(const TestInput& in, const Session::Entry& entry) {
    switch (in.kind) {
      case TestInput::Kind::Values: return read_arguments(in.values.text, path_, entry, in.values.line);
      case TestInput::Kind::File: {
        std::string file = data_path(in.file);
        return read_arguments(read_data_file(file), file, entry);
      }
      case TestInput::Kind::Random: {
        std::vector<Value> values;
        for (size_t k = 0; k < in.random.size(); ++k) {
          const GenValue& g = in.random[k];
          values.push_back(g.fixed ? *g.fixed : random_value(*g.type, k + 1));
        }
        if (values.size() != entry.params.size())
          throw Error(ErrorKind::Input, fmt::format("entry point {} takes {} arguments, but the random input has {}",
                                                    entry.name, entry.params.size(), values.size()));
        // Generated values must still have the parameters' types.
        for (size_t k = 0; k < values.size(); ++k) {
          ValueType vt = value_type_of(values[k]);
          if (!fits(vt, *entry.params[k]))
            throw Error(ErrorKind::Input, fmt::format("argument {}: expected {}, but the random input generates {}",
                                                      k + 1, type_text(*entry.params[k]), vt.str()));
        }
        return values;
      }
      case TestInput::Kind::Script: return script_arguments(in, entry);
    }
    return {};
  }

  std::vector<Value> expected_values(const ExpectedResult& e, const Session::Entry& entry) {
    std::string text, name = path_;
    uint32_t line = 1;
    if (e.kind == ExpectedResult::Kind::File) {
      name = data_path(e.file);
      text = read_data_file(name);
    } else {
      text = e.values.text;
      line = e.values.line;
    }
    // Read guided by the result types; values beyond them are read as they
    // come, so that a count mismatch is reported by the comparison.
    ValueReader reader(text, name, line);
    std::vector<Value> values;
    for (size_t k = 0; !reader.at_end(); ++k) {
      std::string what = fmt::format("expected value {}", k + 1);
      if (k < entry.results.size() && is_value_format_type(*entry.results[k]))
        values.push_back(reader.read(*entry.results[k], what));
      else
        values.push_back(reader.read_any(what).first);
    }
    return values;
  }

  Session& reference() {
    if (!reference_) {
      CommonOptions ref;
      ref.backend = "reference";  // the expected outputs' oracle, never the default
      reference_ = open_session(ref);
      reference_->load_file(path_);
    }
    return *reference_;
  }

  std::string path_, dir_;
  const TestOptions& options_;
  std::unique_ptr<Session> session_, reference_;
};

}  // namespace

std::vector<CaseResult> run_program_tests(const std::string& path, const TestOptions& options) {
  return ProgramRunner(path, options).run();
}

#endif

}  // namespace thorn::cli
