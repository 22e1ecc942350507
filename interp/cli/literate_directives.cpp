#include "interp/cli/literate_directives.hpp"

#ifdef THORN_HAVE_SESSION

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "interp/cli/external_program.hpp"
#include "interp/cli/futhark_script.hpp"
#include "interp/cli/image.hpp"
#include "interp/cli/png_file.hpp"
#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {

namespace fs = std::filesystem;

// How errors name a directive's expression: its positions are within the
// expression, so "[directive at prog.fut:12]:1:5: type error ...".
std::string source_name(const LiterateContext& ctx, const Directive& d) {
  return fmt::format("[directive at {}:{}]", ctx.program_path, d.line);
}

// Evaluates the directive's expression (FutharkScript, futhark_script.hpp);
// builtins read files relative to the program's directory.
Session::Outcome evaluate(LiterateContext& ctx, const Directive& d) {
  std::string dir = fs::path(ctx.program_path).parent_path().string();
  Session::Outcome out = eval_script(*ctx.session, d.expr, dir, source_name(ctx, d));
  if (!out.is_expression) throw Error(ErrorKind::Input, "a directive needs an expression, not a declaration");
  return out;
}

// The file for a directive's output: `file:` when given (a plain name, as
// Futhark requires), else "<hash>-<template>", the hash of the program and
// the directive, like Futhark's names. Returns the name inside img_dir.
std::string output_name(LiterateContext& ctx, const Directive& d, const std::string& template_name) {
  std::string name = d.param("file");
  if (!name.empty() && (name.find('/') != std::string::npos || name.find(' ') != std::string::npos))
    throw Error(ErrorKind::Input, fmt::format("file: {}: a file name may not contain '/' or spaces", name));
  if (name.empty()) name = text_hash(ctx.program_hash + d.text) + "-" + template_name;
  fs::create_directories(ctx.img_dir);
  ctx.written.insert(name);
  return name;
}

std::string image_link(const LiterateContext& ctx, const std::string& name) {
  return fmt::format("![]({}/{})\n", ctx.img_link, name);
}

// A tuple of 1D numeric arrays of one length, as columns of numbers (what
// gnuplot reads); nullopt for anything else.
std::optional<std::vector<std::vector<double>>> columns_of(const Value& v) {
  if (v.kind != Value::Kind::Tuple || !v.elems || v.elems->empty()) return std::nullopt;
  std::vector<std::vector<double>> columns;
  for (const Value& c : *v.elems) {
    if (!c.is_array() || c.arr().rank() != 1 || c.arr().elem.kind != ElemShape::Kind::Prim ||
        c.arr().elem.ad || !is_numeric(c.arr().elem.prim))
      return std::nullopt;
    if (!columns.empty() && int64_t(columns[0].size()) != c.arr().outer()) return std::nullopt;
    std::vector<double> column;
    for (int64_t i = 0; i < c.arr().outer(); ++i) column.push_back(prim_element(c.arr(), i).as_f64());
    columns.push_back(std::move(column));
  }
  return columns;
}

// gnuplot reads the data from files named by variables: name='file'.
struct DataSet {
  std::string name;
  std::string assignment;
};

DataSet write_data(const TempDir& dir, const std::string& name, const std::vector<std::vector<double>>& columns) {
  std::string path = fmt::format("{}/{}.dat", dir.path(), name);
  std::ofstream out(path);
  for (size_t row = 0; row < columns[0].size(); ++row) {
    for (size_t c = 0; c < columns.size(); ++c) out << (c ? " " : "") << fmt::format("{}", columns[c][row]);
    out << "\n";
  }
  return {name, fmt::format("{}='{}'", name, path)};
}

[[noreturn]] void cannot_plot(const Session::Outcome& out) {
  throw Error(ErrorKind::Input, fmt::format("cannot plot a value of type {}", out.type ? to_string(out.type) : "?"));
}

// A directive's value as futhark literate prints it: tuples and records of
// values on one line, "(1i32, [2i32])", "{a=1i32, b=true}"; arrays and
// scalars in the value format.
std::string show_value(const Value& v, const TypePtr& type) {
  auto component_type = [&](size_t k) -> TypePtr {
    if (!type) return nullptr;
    if (type->kind == Type::Kind::Tuple && k < type->elems.size()) return type->elems[k];
    if (type->kind == Type::Kind::Record && k < type->fields.size()) return type->fields[k].second;
    return nullptr;
  };
  if (v.kind == Value::Kind::Tuple || v.kind == Value::Kind::Record) {
    bool record = v.kind == Value::Kind::Record;
    std::string text;
    for (size_t k = 0; k < v.elems->size(); ++k)
      text += fmt::format("{}{}{}", k ? ", " : "", record ? (*v.names)[k] + "=" : "",
                          show_value((*v.elems)[k], component_type(k)));
    return record ? "{" + text + "}" : "(" + text + ")";
  }
  if (v.kind == Value::Kind::Function || v.kind == Value::Kind::Sum)
    throw Error(ErrorKind::Input, fmt::format("cannot show a value of type {}", type ? to_string(type) : "?"));
  return format_value(v, type, ValueStyle::Data);
}

std::string run_value(LiterateContext& ctx, const Directive& d) {
  Session::Outcome out = evaluate(ctx, d);
  return "```\n" + show_value(out.value, out.type) + "\n```\n";
}

std::string run_img(LiterateContext& ctx, const Directive& d) {
  Image img = image_from_value(evaluate(ctx, d).value);
  std::string name = output_name(ctx, d, "img.png");
  write_png(ctx.img_dir + "/" + name, img);
  return image_link(ctx, name);
}

// :plot2d e: one line per (x, y) pair of arrays; a record plots each field,
// titled by its name. "size: (w,h)" sets the picture's size (500x500).
std::string run_plot2d(LiterateContext& ctx, const Directive& d) {
  Session::Outcome out = evaluate(ctx, d);
  TempDir dir;
  std::vector<std::pair<std::optional<std::string>, DataSet>> sets;
  auto add = [&](const Value& v, std::optional<std::string> title) {
    auto columns = columns_of(v);
    if (!columns || columns->size() != 2) cannot_plot(out);
    sets.emplace_back(title, write_data(dir, title ? *title : fmt::format("data{}", sets.size()), *columns));
  };
  if (out.value.kind == Value::Kind::Record) {
    for (size_t k = 0; k < out.value.elems->size(); ++k) add((*out.value.elems)[k], (*out.value.names)[k]);
  } else {
    add(out.value, std::nullopt);
  }
  std::string size = d.param("size", "500,500");
  if (size.front() == '(' && size.back() == ')') size = size.substr(1, size.size() - 2);
  std::string name = output_name(ctx, d, "plot.png");
  std::string script = fmt::format("set terminal png size {} enhanced\nset output '{}/{}'\nset key outside\n", size,
                                   fs::absolute(ctx.img_dir).string(), name);
  std::string plots;
  for (const auto& [title, set] : sets) {
    script += set.assignment + "\n";
    plots += fmt::format("{}{} {} with lines", plots.empty() ? "" : ", ", set.name,
                         title ? fmt::format("title '{}'", *title) : "notitle");
  }
  script += "plot " + plots + "\n";
  run_program("gnuplot", {}, script, ":plot2d");
  return image_link(ctx, name);
}

// :gnuplot e; script: every field of the record e (a tuple of 1D arrays)
// becomes a data file whose name is in a gnuplot variable of the field's name.
std::string run_gnuplot(LiterateContext& ctx, const Directive& d) {
  Session::Outcome out = evaluate(ctx, d);
  if (out.value.kind != Value::Kind::Record) cannot_plot(out);
  TempDir dir;
  std::string name = output_name(ctx, d, "plot.png");
  std::string script =
      fmt::format("set terminal png enhanced\nset output '{}/{}'\n", fs::absolute(ctx.img_dir).string(), name);
  for (size_t k = 0; k < out.value.elems->size(); ++k) {
    auto columns = columns_of((*out.value.elems)[k]);
    if (!columns) cannot_plot(out);
    script += write_data(dir, (*out.value.names)[k], *columns).assignment + "\n";
  }
  script += d.script;
  run_program("gnuplot", {}, script, ":gnuplot");
  return image_link(ctx, name);
}

// A :video of (step, initial, n): n frames made one at a time by a
// top-level function step : s -> (picture, s), possibly applied to leading
// arguments ("(step k, s0, 100i64)"), as futhark literate allows (there the
// step must be an entry point). The step is named in the directive's text.
void step_frames(LiterateContext& ctx, const Directive& d, const Value& triple,
                 const std::function<void(const Value&)>& add_frame) {
  std::string source = source_name(ctx, d);
  auto parts = tuple_components(script_to_futhark(d.expr, fs::path(ctx.program_path).parent_path().string()));
  std::vector<std::string> words = parts && parts->size() == 3 ? application_words((*parts)[0]) : std::vector<std::string>{};
  if (words.empty() || !ctx.session->entry(words[0]))
    throw Error(ErrorKind::Input,
                "the step function of :video (f, s, n) must be written as a top-level function's name, "
                "possibly applied to arguments");
  std::vector<Value> leading;
  for (size_t k = 1; k < words.size(); ++k) leading.push_back(ctx.session->eval_input(words[k], source).value);
  Value state = (*triple.elems)[1];
  int64_t n = (*triple.elems)[2].scalar.as_i64();
  for (int64_t j = 0; j < n; ++j) {
    std::vector<Value> args = leading;
    args.push_back(state);
    std::vector<Value> result = ctx.session->call(words[0], std::move(args));
    if (result.size() != 2) throw Error(ErrorKind::Input, "the step function of :video must return (picture, state)");
    add_frame(result[0]);
    state = result[1];
  }
}

// :video e: frames written as PNG files and encoded by ffmpeg (VP9 WebM,
// or a GIF made from it), with `fps`, `format`, `file`, `loop`, `autoplay`.
// e is a 3D array (frames of pictures) or a (step, initial, n) triple.
std::string run_video(LiterateContext& ctx, const Directive& d) {
  std::string format = d.param("format", "webm");
  if (format != "webm" && format != "gif") throw Error(ErrorKind::Input, fmt::format("unknown video format: {}", format));
  if (find_program("ffmpeg").empty())  // before evaluating: no frames made in vain
    run_program("ffmpeg", {}, "", ":video");
  Value v = evaluate(ctx, d).value;
  TempDir dir;
  int64_t frames = 0;
  auto add_frame = [&](const Value& picture) {
    write_png(fmt::format("{}/frame{:010}.png", dir.path(), frames++), image_from_value(picture));
  };
  if (v.kind == Value::Kind::Tuple && v.elems->size() == 3 && (*v.elems)[0].kind == Value::Kind::Function &&
      (*v.elems)[2].kind == Value::Kind::Scalar && (*v.elems)[2].scalar.type == Prim::I64) {
    step_frames(ctx, d, v, add_frame);
  } else if (v.is_array() && v.arr().rank() == 3) {
    for (int64_t i = 0; i < v.arr().outer(); ++i) add_frame(array_row(v.arr(), i));
  } else {
    throw Error(ErrorKind::Input,
                "a video needs a 3D array (frames of pictures, as :img takes them) or a triple "
                "(step : s -> (picture, s), initial state, number of frames: i64)");
  }
  if (frames == 0) throw Error(ErrorKind::Input, "a video needs at least one frame");
  std::string name = output_name(ctx, d, "video." + format);
  std::string webm = dir.path() + "/video.webm";
  run_program("ffmpeg",
              {"-y", "-r", d.param("fps", "30"), "-i", dir.path() + "/frame%010d.png", "-c:v", "libvpx-vp9",
               "-pix_fmt", "yuv420p", "-b:v", "2M", webm},
              "", ":video");
  std::string target = ctx.img_dir + "/" + name;
  if (format == "gif") {
    run_program("ffmpeg", {"-y", "-i", webm, target}, "", ":video");
  } else {
    fs::copy_file(webm, target, fs::copy_options::overwrite_existing);
  }
  std::vector<std::string> opts;
  for (const char* key : {"loop", "autoplay"}) {
    std::string v = d.param(key);
    if (!v.empty()) opts.push_back(fmt::format("{}=\"{}\"", key, v == "true" ? "true" : "false"));
  }
  std::string attributes;
  for (const auto& o : opts) attributes += (attributes.empty() ? "" : " ") + o;
  return fmt::format("![]({}/{}){}\n", ctx.img_link, name, attributes.empty() ? "" : "{" + attributes + "}");
}

}  // namespace

std::string text_hash(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

std::string run_directive(LiterateContext& ctx, const Directive& d) {
  switch (d.kind) {
    case Directive::Kind::Value: return run_value(ctx, d);
    case Directive::Kind::Img: return run_img(ctx, d);
    case Directive::Kind::Plot2d: return run_plot2d(ctx, d);
    case Directive::Kind::Gnuplot: return run_gnuplot(ctx, d);
    case Directive::Kind::Video: return run_video(ctx, d);
    case Directive::Kind::Audio: break;
  }
  throw Error(ErrorKind::Input, "thorn literate does not support :audio yet");
}

}  // namespace thorn::cli

#endif
