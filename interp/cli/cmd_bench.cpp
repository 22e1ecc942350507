// thorn bench: benchmarks the datasets of test blocks, like `futhark bench`.
//
// For each program, entry point and dataset (runs tagged `nobench` or
// `disable` are skipped; `--dataset FILE` adds datasets read from files),
// the entry point is called once to warm up (plans, prelude, caches) and
// then timed `--runs` times. A run's time covers the call and bringing its
// results into memory (the host backend's results may be delayed arrays,
// computed only when needed: they are forced inside the timed region).
// Input reading is not timed. Prints mean, median and spread; `--json FILE`
// writes the runtimes in the format of `futhark bench --json`.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "interp/cli/commands.hpp"
#include "interp/cli/program_files.hpp"
#include "interp/cli/entry_points.hpp"
#include "interp/cli/random_values.hpp"
#include "interp/cli/session_setup.hpp"
#include "interp/cli/test_runner.hpp"
#include "interp/cli/test_spec.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

#ifdef THORN_HAVE_SESSION

namespace {

constexpr const char* kHelp =
    "Usage: thorn bench [options...] PATH...\n"
    "\n"
    "Benchmark the datasets of the test blocks (`-- ==`) of Futhark programs, as\n"
    "`futhark bench` does. PATH is a .fut file or a directory searched for them.\n"
    "Each dataset runs once to warm up, then --runs times; the times include\n"
    "computing the results, not reading the inputs.\n"
    "\n"
    "  -r, --runs N          timed runs per dataset (default 10)\n"
    "  -e, --entry-point N   only this entry point\n"
    "  --dataset FILE        also benchmark the values in FILE (text or binary) as a\n"
    "                        dataset of every entry point (repeatable)\n"
    "  --json FILE           write the runtimes (microseconds) as futhark bench does\n";

struct Options {
  CommonOptions common;
  int runs = 10;
  std::string entry;
  std::vector<std::string> datasets;
  std::string json;
};

struct Result {
  std::string key;      // "prog.fut" or "prog.fut:entry"
  std::string dataset;  // the dataset's name
  std::vector<double> runtimes_us;
  std::string error;
};

// Brings every array of a result into host memory (delayed arrays are
// computed here, device arrays downloaded).
void force(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Array: {
      const ArrayValue& a = v.arr();
      if (a.buffer) a.buffer->host();
      for (const ArrayPtr& c : a.components) force(Value::make_array(c));
      if (a.boxed)
        for (const Value& x : *a.boxed) force(x);
      return;
    }
    case Value::Kind::Tuple:
    case Value::Kind::Record:
    case Value::Kind::Sum:
      for (const Value& x : *v.elems) force(x);
      return;
    default: return;
  }
}

struct Stats {
  double mean = 0, median = 0, stddev = 0, min = 0, max = 0;
};

Stats stats(std::vector<double> xs) {
  Stats s;
  if (xs.empty()) return s;
  std::sort(xs.begin(), xs.end());
  double sum = 0;
  for (double x : xs) sum += x;
  s.mean = sum / double(xs.size());
  s.median = xs.size() % 2 ? xs[xs.size() / 2] : (xs[xs.size() / 2 - 1] + xs[xs.size() / 2]) / 2;
  double var = 0;
  for (double x : xs) var += (x - s.mean) * (x - s.mean);
  s.stddev = xs.size() > 1 ? std::sqrt(var / double(xs.size() - 1)) : 0;
  s.min = xs.front();
  s.max = xs.back();
  return s;
}

class Bencher {
 public:
  Bencher(const Options& o) : options_(o) {}

  void program(const std::string& path) {
    namespace fs = std::filesystem;
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const SourceFile* file = register_source(path, text);
    auto spec = parse_test_spec(file);
    CommonOptions common = options_.common;
    auto session = open_session(common);
    session->load_file(path);
    std::string dir = fs::path(path).parent_path().string();
    std::cout << fmt::format("{} ({} backend):\n", path, common.backend);
    std::vector<std::pair<std::string, std::vector<const TestRun*>>> work;
    if (spec) {
      if (spec->has_tag("disable")) return;
      for (const InputOutputs& io : spec->cases)
        for (const std::string& e : io.entries) {
          if (!options_.entry.empty() && e != options_.entry) continue;
          std::vector<const TestRun*> runs;
          for (const TestRun& r : io.runs) {
            bool skip = false;
            for (const std::string& t : r.tags) skip |= t == "nobench" || t == "disable";
            if (!skip && r.input.kind != TestInput::Kind::Script) runs.push_back(&r);
          }
          work.emplace_back(e, runs);
        }
    }
    if (!options_.datasets.empty()) {
      std::vector<std::string> entries =
          options_.entry.empty() ? session->entry_names() : std::vector<std::string>{options_.entry};
      for (const std::string& e : entries) {
        bool found = false;
        for (auto& w : work) found |= w.first == e;
        if (!found) work.emplace_back(e, std::vector<const TestRun*>{});
      }
    }
    for (auto& [entry_name, runs] : work) {
      auto entry = session->entry(entry_name);
      if (!entry) {
        std::cerr << unknown_entry_message(*session, path, entry_name) << "\n";
        continue;
      }
      std::string key = entry_name == "main" ? path : path + ":" + entry_name;
      for (const TestRun* r : runs)
        bench(*session, *entry, key, r->name, [&] { return inputs(r->input, *entry, path, dir); });
      for (const std::string& file : options_.datasets)
        bench(*session, *entry, key, file,
              [&] { return read_arguments(read_data_file(file), file, *entry); });
    }
  }

  void bench(Session& session, const Session::Entry& entry, const std::string& key, const std::string& dataset,
             const std::function<std::vector<Value>()>& get_inputs) {
    Result res;
    res.key = key;
    res.dataset = dataset;
    try {
      std::vector<Value> args = get_inputs();
      force_all(args);
      force_all(session.call(entry.name, args));  // warm-up
      for (int k = 0; k < options_.runs; ++k) {
        auto t0 = std::chrono::steady_clock::now();
        std::vector<Value> out = session.call(entry.name, args);
        force_all(out);
        auto t1 = std::chrono::steady_clock::now();
        res.runtimes_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
      Stats s = stats(res.runtimes_us);
      std::cout << fmt::format("  {:<40} {:>12.0f}us  median {:>10.0f}us  ±{:.1f}%  (min {:.0f}, max {:.0f}, {} runs)\n",
                               (entry.name == "main" ? "" : entry.name + ": ") + dataset, s.mean, s.median,
                               s.mean > 0 ? 100 * s.stddev / s.mean : 0.0, s.min, s.max, res.runtimes_us.size());
    } catch (const Error& e) {
      res.error = e.render();
      std::cout << fmt::format("  {:<40} failed: {}\n", dataset, e.message);
      failed_ = true;
    }
    results_.push_back(std::move(res));
  }

  static void force_all(const std::vector<Value>& vs) {
    for (const Value& v : vs) force(v);
  }

  std::vector<Value> inputs(const TestInput& in, const Session::Entry& entry, const std::string& path,
                            const std::string& dir) {
    namespace fs = std::filesystem;
    switch (in.kind) {
      case TestInput::Kind::Values: return read_arguments(in.values.text, path, entry, in.values.line);
      case TestInput::Kind::File: {
        std::string file = dir.empty() ? in.file : (fs::path(dir) / in.file).string();
        return read_arguments(read_data_file(file), file, entry);
      }
      case TestInput::Kind::Random: {
        std::vector<Value> values;
        for (size_t k = 0; k < in.random.size(); ++k) {
          const GenValue& g = in.random[k];
          values.push_back(g.fixed ? *g.fixed : random_value(*g.type, k + 1));
        }
        return values;
      }
      case TestInput::Kind::Script: break;
    }
    return {};
  }

  void write_json(const std::string& file) const {
    // { "prog.fut:entry": { "datasets": { "name": { "runtimes": [...], "bytes": 0, "stderr": "" } } } }
    std::map<std::string, std::vector<const Result*>> by_key;
    for (const Result& r : results_)
      if (r.error.empty()) by_key[r.key].push_back(&r);
    std::ofstream out(file);
    out << "{";
    bool first_key = true;
    for (const auto& [key, rs] : by_key) {
      out << (first_key ? "" : ",") << "\n  " << json_string(key) << ": {\"datasets\": {";
      first_key = false;
      for (size_t i = 0; i < rs.size(); ++i) {
        out << (i ? "," : "") << "\n    " << json_string(rs[i]->dataset) << ": {\"runtimes\": [";
        for (size_t k = 0; k < rs[i]->runtimes_us.size(); ++k)
          out << (k ? ", " : "") << fmt::format("{:.0f}", rs[i]->runtimes_us[k]);
        out << "], \"bytes\": 0, \"stderr\": \"\"}";
      }
      out << "}}";
    }
    out << "\n}\n";
  }

  bool failed() const { return failed_; }

 private:
  const Options& options_;
  std::vector<Result> results_;
  bool failed_ = false;
};

}  // namespace

int cmd_bench(const Args& argv) {
  Options o;
  std::vector<std::string> paths;
  ArgScanner args("bench", argv);
  while (args.next()) {
    if (args.positional()) {
      paths.push_back(args.arg());
    } else if (args.is("-h", "--help")) {
      std::cout << kHelp << kCommonOptionsHelp;
      return 0;
    } else if (args.is("-r", "--runs")) {
      o.runs = int(parse_integer(args, args.value()));
    } else if (args.is("-e", "--entry-point")) {
      o.entry = args.value();
    } else if (args.is("", "--dataset")) {
      o.datasets.push_back(args.value());
    } else if (args.is("", "--json")) {
      o.json = args.value();
    } else if (!take_common_option(args, o.common)) {
      args.unknown();
    }
  }
  if (paths.empty()) args.fail("no programs given");
  Bencher b(o);
  for (const std::string& p : find_programs(paths)) {
    try {
      b.program(p);
    } catch (const Error& e) {
      std::cerr << e.render() << "\n";
      return 1;
    }
  }
  if (!o.json.empty()) b.write_json(o.json);
  return b.failed() ? 1 : 0;
}

#else

int cmd_bench(const Args&) { return evaluator_missing("bench"); }

#endif

}  // namespace thorn::cli
