// Layout follows Wadler's "prettier printer" as Haskell's prettyprinter
// implements it in layoutPretty: a group is flattened when its flat text,
// followed by the rest of the document up to the next line break, fits in
// the remaining width. The rest is laid out with its own group decisions
// (Haskell gets that lazily); here a decision inside the look-ahead is made
// by a nested check and memoised per (group, column), which keeps long
// arrays of tuples linear.
#include "interp/core/pretty_doc.hpp"

#include <map>
#include <utility>

namespace thorn::pretty {

DocPtr text(std::string s) {
  auto d = std::make_shared<Doc>();
  d->kind = Doc::Kind::Text;
  d->text = std::move(s);
  return d;
}

DocPtr line() {
  static const DocPtr the_line = [] {
    auto d = std::make_shared<Doc>();
    d->kind = Doc::Kind::Line;
    return d;
  }();
  return the_line;
}

DocPtr cat(std::vector<DocPtr> parts) {
  auto d = std::make_shared<Doc>();
  d->kind = Doc::Kind::Cat;
  d->parts = std::move(parts);
  return d;
}

DocPtr align(DocPtr inner) {
  auto d = std::make_shared<Doc>();
  d->kind = Doc::Kind::Align;
  d->inner = std::move(inner);
  return d;
}

DocPtr group(DocPtr inner) {
  auto d = std::make_shared<Doc>();
  d->kind = Doc::Kind::Group;
  d->inner = std::move(inner);
  return d;
}

namespace {

// The work list is a persistent stack so the look-ahead can walk the rest
// of the document without copying it.
struct Frame {
  int indent;
  bool flat;
  const Doc* doc;
};
struct Node;
using Stack = std::shared_ptr<const Node>;
struct Node {
  Frame frame;
  Stack next;
};
Stack push(Frame f, Stack rest) { return std::make_shared<const Node>(Node{f, std::move(rest)}); }

class Layout {
 public:
  explicit Layout(int width) : width_(width) {}

  std::string run(const DocPtr& doc, int col) {
    std::string out;
    Stack s = push(Frame{col, false, doc.get()}, nullptr);
    while (s) {
      Frame f = s->frame;
      s = s->next;
      switch (f.doc->kind) {
        case Doc::Kind::Text:
          out += f.doc->text;
          col += int(f.doc->text.size());
          break;
        case Doc::Kind::Line:
          if (f.flat) {
            out += ' ';
            ++col;
          } else {
            out += '\n';
            out.append(size_t(f.indent), ' ');
            col = f.indent;
          }
          break;
        case Doc::Kind::Cat:
          for (auto it = f.doc->parts.rbegin(); it != f.doc->parts.rend(); ++it)
            s = push(Frame{f.indent, f.flat, it->get()}, s);
          break;
        case Doc::Kind::Align: s = push(Frame{col, f.flat, f.doc->inner.get()}, s); break;
        case Doc::Kind::Group: {
          bool flat = f.flat || decide(f, col, s);
          s = push(Frame{f.indent, flat, f.doc->inner.get()}, s);
          break;
        }
      }
    }
    return out;
  }

 private:
  // Should the group in frame `f`, at column `col`, followed by `rest`, be flat?
  bool decide(const Frame& f, int col, const Stack& rest) {
    auto key = std::make_pair(f.doc, col);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    bool result = fits(col, push(Frame{f.indent, true, f.doc->inner.get()}, rest));
    memo_.emplace(key, result);
    return result;
  }

  // Does the text up to the next line break fit?
  bool fits(int col, Stack s) {
    while (s) {
      if (col > width_) return false;
      Frame f = s->frame;
      s = s->next;
      switch (f.doc->kind) {
        case Doc::Kind::Text: col += int(f.doc->text.size()); break;
        case Doc::Kind::Line:
          if (!f.flat) return col <= width_;
          ++col;
          break;
        case Doc::Kind::Cat:
          for (auto it = f.doc->parts.rbegin(); it != f.doc->parts.rend(); ++it)
            s = push(Frame{f.indent, f.flat, it->get()}, s);
          break;
        case Doc::Kind::Align: s = push(Frame{col, f.flat, f.doc->inner.get()}, s); break;
        case Doc::Kind::Group: {
          bool flat = f.flat || decide(f, col, s);
          s = push(Frame{f.indent, flat, f.doc->inner.get()}, s);
          break;
        }
      }
    }
    return col <= width_;
  }

  int width_;
  std::map<std::pair<const Doc*, int>, bool> memo_;
};

}  // namespace

std::string render(const DocPtr& doc, int width, int start_col) { return Layout(width).run(doc, start_col); }

}  // namespace thorn::pretty
