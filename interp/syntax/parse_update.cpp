// Update paths: `e with [i].f = v`, `let xs[i][j] = v`, `let r.a = v`,
// `(.[0].a[1:3])`. Futhark allows any sequence of field names and index
// brackets in these places; thorn's AST has one Update (fields, then one
// index list) and one RecordUpdate (fields). A longer path is desugared
// into nested updates, each of the next part of the value:
//
//   e with [i].f = v      ==>  e with [i] = (e[i] with f = v)
//   e with a[i].b[j] = v  ==>  e with a[i] = (e.a[i] with b[j] = v)
//
// with `e` bound to a fresh name first unless it is a variable, and the
// inner part copied (see copy_of). Index
// brackets in a row merge (`[i][j]` is `[i, j]`) while the earlier ones
// are plain indices, so that the update stays one in-place update of the
// array.
#include "interp/syntax/parser_impl.hpp"

namespace thorn {

namespace {

using K = Expr::Kind;

bool all_plain(const std::vector<IndexArg>& indices) {
  for (const IndexArg& a : indices)
    if (a.is_slice) return false;
  return true;
}

// One Update or RecordUpdate: fields, then at most one index list.
struct Chunk {
  std::vector<std::string> fields;
  std::vector<IndexArg> indices;
  bool has_indices = false;
};

std::vector<Chunk> chunks_of(const std::vector<UpdateStep>& path) {
  std::vector<Chunk> out;
  size_t k = 0;
  while (k < path.size()) {
    Chunk c;
    while (k < path.size() && path[k].is_field) c.fields.push_back(path[k++].field);
    if (k < path.size()) {
      c.has_indices = true;
      c.indices = path[k++].indices;
      while (k < path.size() && !path[k].is_field && all_plain(c.indices)) {
        const std::vector<IndexArg>& more = path[k++].indices;
        c.indices.insert(c.indices.end(), more.begin(), more.end());
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

// e.fields[indices]
ExprPtr access(ExprPtr e, const Chunk& c, const Loc& loc) {
  for (const std::string& f : c.fields) {
    auto p = make_expr(K::Project, loc);
    p->a = e;
    p->field_path = {f};
    e = p;
  }
  if (c.has_indices) {
    auto ix = make_expr(K::Index, loc);
    ix->a = e;
    ix->indices = c.indices;
    e = ix;
  }
  return e;
}

ExprPtr update(ExprPtr target, const Chunk& c, ExprPtr value, const Loc& loc) {
  auto n = make_expr(c.has_indices ? K::Update : K::RecordUpdate, loc);
  n->a = std::move(target);
  n->field_path = c.fields;
  n->indices = c.indices;
  n->b = std::move(value);
  return n;
}

ExprPtr var(const std::string& name, const Loc& loc) {
  auto v = make_expr(K::Var, loc);
  v->name.name = name;
  return v;
}

PatternPtr id_pattern(const std::string& name, const Loc& loc) {
  auto p = std::make_shared<Pattern>();
  p->kind = Pattern::Kind::Id;
  p->name = name;
  p->loc = loc;
  return p;
}

// A name no program can write (the lexer never produces `%`).
std::string fresh_name(int& counter) { return "update%" + std::to_string(counter++); }

// The part being updated further is a copy: as a view of the target it
// would alias the array it is written back into (and could not be
// consumed). Futhark updates along the path in place; this copies one
// element (a record, or a row) per update.
ExprPtr copy_of(ExprPtr e, const Loc& loc) {
  auto c = make_expr(K::Intrinsic, loc);
  c->text = "copy";
  c->list.push_back(std::move(e));
  return c;
}

ExprPtr nested_update(ExprPtr target, const std::vector<Chunk>& chunks, size_t from, ExprPtr value, const Loc& loc) {
  if (from + 1 == chunks.size()) return update(std::move(target), chunks[from], std::move(value), loc);
  ExprPtr inner =
      nested_update(copy_of(access(target, chunks[from], loc), loc), chunks, from + 1, std::move(value), loc);
  return update(std::move(target), chunks[from], std::move(inner), loc);
}

}  // namespace

std::vector<UpdateStep> Parser::update_path(bool leading_field) {
  std::vector<UpdateStep> path;
  if (leading_field) {
    UpdateStep s;
    s.is_field = true;
    s.field = field_id();
    path.push_back(std::move(s));
  }
  for (;;) {
    if (peek().is_left_bracket() && (path.empty() || at(Tok::IndexBracket))) {
      advance();
      UpdateStep s;
      s.indices = dim_indices();
      path.push_back(std::move(s));
    } else if (at(Tok::Dot) && !path.empty()) {
      advance();
      UpdateStep s;
      s.is_field = true;
      s.field = field_id();
      path.push_back(std::move(s));
    } else {
      break;
    }
  }
  return path;
}

ExprPtr Parser::path_update(ExprPtr target, const std::vector<UpdateStep>& path, ExprPtr value, const Loc& loc) {
  std::vector<Chunk> chunks = chunks_of(path);
  if (chunks.size() == 1 || target->kind == K::Var) return nested_update(std::move(target), chunks, 0, std::move(value), loc);
  // Evaluate a non-variable target once.
  std::string name = fresh_name(fresh_counter_);
  auto let = make_expr(K::Let, loc);
  let->pattern = id_pattern(name, loc);
  let->a = std::move(target);
  let->b = nested_update(var(name, loc), chunks, 0, std::move(value), loc);
  return let;
}

ExprPtr Parser::path_section(const std::vector<UpdateStep>& path, const Loc& loc) {
  std::string name = fresh_name(fresh_counter_);
  ExprPtr body = var(name, loc);
  for (const Chunk& c : chunks_of(path)) body = access(body, c, loc);
  auto lam = make_expr(K::Lambda, loc);
  lam->params.push_back(id_pattern(name, loc));
  lam->a = body;
  return lam;
}

}  // namespace thorn
