#include "interp/syntax/print.hpp"

#include <fmt/format.h>

namespace thorn {

namespace {

using K = Expr::Kind;

template <typename T, typename F>
std::string join(const std::vector<T>& xs, std::string_view sep, F f) {
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i) out += sep;
    out += f(xs[i]);
  }
  return out;
}

std::string str(const ExprPtr& e) { return e ? to_string(*e) : "<null>"; }
std::string str(const PatternPtr& p) { return p ? to_string(*p) : "<null>"; }
std::string str(const TypeExprPtr& t) { return t ? to_string(*t) : "<null>"; }
std::string str(const SigExprPtr& s) { return s ? to_string(*s) : "<null>"; }
std::string str(const ModExprPtr& m) { return m ? to_string(*m) : "<null>"; }

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        else out += c;
    }
  }
  return out + "\"";
}

std::string index_arg(const IndexArg& a) {
  if (!a.is_slice) return str(a.index);
  std::string out = (a.start ? str(a.start) : "") + ":" + (a.end ? str(a.end) : "");
  if (a.stride) out += ":" + str(a.stride);
  return out;
}

std::string indices(const std::vector<IndexArg>& idx) { return "[" + join(idx, ", ", index_arg) + "]"; }

std::string type_param(const TypeParam& p) {
  if (p.is_size) return "[" + p.name + "]";
  return (p.lifted ? "'^" : "'") + p.name;
}

std::string type_params(const std::vector<TypeParam>& ps) {
  std::string out;
  for (const auto& p : ps) out += " " + type_param(p);
  return out;
}

std::string params(const std::vector<PatternPtr>& ps) {
  std::string out;
  for (const auto& p : ps) out += " " + str(p);
  return out;
}

std::string literal(const Expr& e) {
  if (!e.text.empty()) return e.text;
  std::string suffix = e.suffix ? std::string(prim_name(*e.suffix)) : "";
  if (e.kind == K::FloatLit) return fmt::format("{}{}", e.float_value, suffix);
  return fmt::format("{}{}", e.int_value, suffix);
}

// `+` stays `+`; a function name used infix is shown in backticks.
std::string infix_name(const QualName& name) {
  return is_symbolic(name.name) ? name.str() : "`" + name.str() + "`";
}

}  // namespace

std::string to_string(const Expr& e) {
  switch (e.kind) {
    case K::IntLit:
    case K::FloatLit: return literal(e);
    case K::BoolLit: return e.bool_value ? "true" : "false";
    case K::StringLit: return quote(e.text);
    case K::Var: return e.name.str();
    case K::Apply: return "(" + str(e.a) + " " + join(e.list, " ", [](const ExprPtr& x) { return str(x); }) + ")";
    case K::BinOp: return "(" + str(e.a) + " " + infix_name(e.name) + " " + str(e.b) + ")";
    case K::Negate: return "(-" + str(e.a) + ")";
    case K::Not: return "(!" + str(e.a) + ")";
    case K::OpSection: {
      std::string op = infix_name(e.name);
      if (e.a) return "(" + str(e.a) + " " + op + ")";
      if (e.b) return "(" + op + " " + str(e.b) + ")";
      return "(" + op + ")";
    }
    case K::ProjSection: return "(." + join(e.field_path, ".", [](const std::string& s) { return s; }) + ")";
    case K::IndexSection: return "(." + indices(e.indices) + ")";
    case K::Lambda:
      return "(\\" + params(e.params).substr(1) + (e.ret_type ? " : " + str(e.ret_type) : "") + " -> " + str(e.a) +
             ")";
    case K::Let: {
      std::string sizes;
      for (const auto& p : e.type_params) sizes += "[" + p.name + "] ";
      return "(let " + sizes + str(e.pattern) + " = " + str(e.a) + " in " + str(e.b) + ")";
    }
    case K::LetFun:
      return "(let " + e.name.str() + type_params(e.type_params) + params(e.params) +
             (e.ret_type ? " : " + str(e.ret_type) : "") + " = " + str(e.a) + " in " + str(e.b) + ")";
    case K::If: return "(if " + str(e.a) + " then " + str(e.b) + " else " + str(e.c) + ")";
    case K::Loop: {
      std::string out = "(loop " + str(e.params.empty() ? nullptr : e.params[0]);
      if (e.a) out += " = " + str(e.a);
      switch (e.loop_form) {
        case Expr::LoopForm::For: out += " for " + e.loop_var + " < " + str(e.c); break;
        case Expr::LoopForm::ForIn: out += " for " + str(e.pattern) + " in " + str(e.c); break;
        case Expr::LoopForm::While: out += " while " + str(e.c); break;
      }
      return out + " do " + str(e.b) + ")";
    }
    case K::Match: {
      std::string out = "(match " + str(e.a);
      for (const auto& c : e.cases) out += " case " + str(c.pattern) + " -> " + str(c.body);
      return out + ")";
    }
    case K::Tuple: return "(" + join(e.list, ", ", [](const ExprPtr& x) { return str(x); }) + ")";
    case K::Record:
      return "{" +
             join(e.fields, ", ",
                  [](const std::pair<std::string, ExprPtr>& f) { return f.first + " = " + str(f.second); }) +
             "}";
    case K::Project: return "(" + str(e.a) + "." + (e.field_path.empty() ? "" : e.field_path[0]) + ")";
    case K::ArrayLit: return "[" + join(e.list, ", ", [](const ExprPtr& x) { return str(x); }) + "]";
    case K::Range: {
      std::string out = "(" + str(e.a);
      if (e.b) out += ".." + str(e.b);
      switch (e.range_kind) {
        case Expr::RangeKind::Inclusive: out += "..."; break;
        case Expr::RangeKind::UpToExclusive: out += "..<"; break;
        case Expr::RangeKind::DownToExclusive: out += "..>"; break;
      }
      return out + str(e.c) + ")";
    }
    case K::Index: return "(" + str(e.a) + indices(e.indices) + ")";
    case K::Update: {
      std::string path;
      for (const auto& f : e.field_path) path += (path.empty() ? "" : ".") + f;
      return "(" + str(e.a) + " with " + path + indices(e.indices) + " = " + str(e.b) + ")";
    }
    case K::RecordUpdate:
      return "(" + str(e.a) + " with " + join(e.field_path, ".", [](const std::string& s) { return s; }) + " = " +
             str(e.b) + ")";
    case K::Ascribe: return "(" + str(e.a) + " : " + str(e.ret_type) + ")";
    case K::Coerce: return "(" + str(e.a) + " :> " + str(e.ret_type) + ")";
    case K::Assert: return "(assert " + str(e.a) + " " + str(e.b) + ")";
    case K::Constructor:
      if (e.list.empty()) return "#" + e.name.str();
      return "(#" + e.name.str() + " " + join(e.list, " ", [](const ExprPtr& x) { return str(x); }) + ")";
    case K::Attr: {
      std::string out = "(";
      for (const auto& a : e.attrs) out += "#[" + a + "] ";
      return out + str(e.a) + ")";
    }
    case K::Intrinsic: {
      std::string out = "(__intrinsic " + quote(e.text);
      for (const auto& x : e.list) out += " " + str(x);
      return out + ")";
    }
    case K::QualParens: return e.name.str() + ".(" + str(e.a) + ")";
  }
  return "<?>";
}

std::string to_string(const Pattern& p) {
  using PK = Pattern::Kind;
  switch (p.kind) {
    case PK::Id: return is_symbolic(p.name) ? "(" + p.name + ")" : p.name;
    case PK::Wildcard: return "_";
    case PK::Tuple: return "(" + join(p.elems, ", ", [](const PatternPtr& x) { return str(x); }) + ")";
    case PK::Record:
      return "{" +
             join(p.fields, ", ",
                  [](const std::pair<std::string, PatternPtr>& f) { return f.first + " = " + str(f.second); }) +
             "}";
    case PK::Literal: return str(p.literal);
    case PK::Constructor:
      if (p.elems.empty()) return "#" + p.name;
      return "(#" + p.name + " " + join(p.elems, " ", [](const PatternPtr& x) { return str(x); }) + ")";
    case PK::Ascribed: return "(" + str(p.inner) + " : " + str(p.ascription) + ")";
  }
  return "<?>";
}

std::string to_string(const SizeExpr& s) {
  switch (s.kind) {
    case SizeExpr::Kind::Anonymous: return "[]";
    case SizeExpr::Kind::Constant: return fmt::format("[{}]", s.value);
    case SizeExpr::Kind::Name: return "[" + s.name.str() + "]";
    case SizeExpr::Kind::Expr: return "[" + str(s.expr) + "]";
  }
  return "[?]";
}

std::string to_string(const TypeExpr& t) {
  using TK = TypeExpr::Kind;
  switch (t.kind) {
    case TK::Name: {
      if (t.args.empty()) return t.name.str();
      std::string out = "(" + t.name.str();
      for (const auto& a : t.args) out += " " + (a.is_size ? to_string(a.size) : str(a.type));
      return out + ")";
    }
    case TK::Array: return to_string(t.size) + str(t.elem);
    case TK::Tuple: return "(" + join(t.elems, ", ", [](const TypeExprPtr& x) { return str(x); }) + ")";
    case TK::Record:
      return "{" +
             join(t.fields, ", ",
                  [](const std::pair<std::string, TypeExprPtr>& f) { return f.first + ": " + str(f.second); }) +
             "}";
    case TK::Sum: {
      std::string out = "(";
      for (size_t i = 0; i < t.constructors.size(); ++i) {
        if (i) out += " | ";
        out += "#" + t.constructors[i].first;
        for (const auto& x : t.constructors[i].second) out += " " + str(x);
      }
      return out + ")";
    }
    case TK::Function:
      if (!t.param_name.empty()) return "((" + t.param_name + ": " + str(t.param) + ") -> " + str(t.result) + ")";
      return "(" + str(t.param) + " -> " + str(t.result) + ")";
    case TK::Unique: return "*" + str(t.elem);
    case TK::Existential: {
      std::string out = "?";
      for (const auto& n : t.existentials) out += "[" + n + "]";
      return out + "." + str(t.elem);
    }
  }
  return "<?>";
}

std::string to_string(const SigExpr& s) {
  switch (s.kind) {
    case SigExpr::Kind::Name: return s.name.str();
    case SigExpr::Kind::Specs: {
      std::string out = "{";
      for (const auto& item : s.specs) {
        out += " ";
        switch (item->kind) {
          case SpecItem::Kind::Val:
            out += "val " + item->name + type_params(item->type_params) + " : " + str(item->type);
            break;
          case SpecItem::Kind::Type:
            out += std::string("type") + (item->lifted ? "^" : "") + " " + item->name +
                   type_params(item->type_params);
            if (item->type) out += " = " + str(item->type);
            break;
          case SpecItem::Kind::Module: out += "module " + item->name + " : " + str(item->sig); break;
          case SpecItem::Kind::Include: out += "include " + str(item->sig); break;
        }
      }
      return out + " }";
    }
    case SigExpr::Kind::With:
      return "(" + str(s.base) + " with " + s.with_name.str() + type_params(s.with_params) + " = " +
             str(s.with_type) + ")";
    case SigExpr::Kind::Arrow:
      if (!s.arrow_param.empty())
        return "((" + s.arrow_param + ": " + str(s.base) + ") -> " + str(s.arrow_result) + ")";
      return "(" + str(s.base) + " -> " + str(s.arrow_result) + ")";
  }
  return "<?>";
}

std::string to_string(const ModExpr& m) {
  switch (m.kind) {
    case ModExpr::Kind::Struct: {
      std::string out = "{";
      for (const auto& d : m.decls) out += " " + to_string(*d);
      return out + " }";
    }
    case ModExpr::Kind::Name: return m.name.str();
    case ModExpr::Kind::Apply: return "(" + str(m.fn) + " " + str(m.arg) + ")";
    case ModExpr::Kind::Ascribe: return "(" + str(m.fn) + " : " + str(m.sig) + ")";
    case ModExpr::Kind::Import: return "(import " + quote(m.path) + ")";
    case ModExpr::Kind::Lambda: return "(\\(" + m.param + ": " + str(m.sig) + ") -> " + str(m.fn) + ")";
  }
  return "<?>";
}

std::string to_string(const Decl& d) {
  std::string attrs;
  for (const auto& a : d.attrs) attrs += "#[" + a + "] ";
  switch (d.kind) {
    case Decl::Kind::Value: {
      std::string name = is_symbolic(d.name) ? "(" + d.name + ")" : d.name;
      return attrs + (d.entry ? "entry " : "def ") + name + type_params(d.type_params) + params(d.params) +
             (d.ret_type ? " : " + str(d.ret_type) : "") + " = " + str(d.body);
    }
    case Decl::Kind::Type:
      return attrs + "type" + (d.lifted ? "^" : "") + " " + d.name + type_params(d.type_params) + " = " +
             str(d.ret_type);
    case Decl::Kind::Module: {
      std::string out = attrs + "module " + d.name;
      for (const auto& [name, sig] : d.module_params) out += " (" + name + ": " + str(sig) + ")";
      if (d.sig) out += " : " + str(d.sig);
      return out + " = " + str(d.module);
    }
    case Decl::Kind::ModuleType: return attrs + "module type " + d.name + " = " + str(d.sig);
    case Decl::Kind::Open: return attrs + "open " + str(d.module);
    case Decl::Kind::Import: return attrs + "import " + quote(d.path);
    case Decl::Kind::Local: return attrs + "local " + (d.inner ? to_string(*d.inner) : "<null>");
  }
  return "<?>";
}

}  // namespace thorn
