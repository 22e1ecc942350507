#include "interp/types/type.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace thorn {

std::string show_size_name(const std::string& name) {
  if (name.find('#') == std::string::npos) return fmt::format("[{}]", name);
  if (name.find(' ') == std::string::npos) return "[]";
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '#') {
      while (i + 1 < name.size() && isdigit(static_cast<unsigned char>(name[i + 1]))) ++i;
      continue;
    }
    out += name[i];
  }
  return fmt::format("[{}]", out);
}


namespace {

// Futhark orders record fields with numeric names first (numerically), then
// the others by name, so a tuple's fields come out as 0, 1, ..., 10.
std::optional<long> numeric_field(const std::string& name) {
  if (name.empty() || name.size() > 9) return std::nullopt;
  long v = 0;
  auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
  if (ec != std::errc() || ptr != name.data() + name.size()) return std::nullopt;
  return v;
}

}  // namespace

bool field_less(const std::string& a, const std::string& b) {
  auto na = numeric_field(a), nb = numeric_field(b);
  if (na && nb) return *na < *nb;
  if (na || nb) return na.has_value();
  return a < b;
}

TypePtr prim_type(Prim p) {
  // Primitive types are requested constantly; share one node per prim.
  static const auto table = [] {
    std::vector<TypePtr> out;
    for (int i = 0; i < kNumPrims; ++i) {
      auto t = std::make_shared<Type>();
      t->kind = Type::Kind::Prim;
      t->prim = static_cast<Prim>(i);
      out.push_back(t);
    }
    return out;
  }();
  return table[static_cast<int>(p)];
}

TypePtr array_type(TypePtr elem, std::vector<Dim> dims) {
  if (dims.empty()) return elem;
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Array;
  if (elem->kind == Type::Kind::Array) {
    dims.insert(dims.end(), elem->dims.begin(), elem->dims.end());
    t->elem = elem->elem;
    t->unique = elem->unique;
  } else {
    t->elem = std::move(elem);
  }
  t->dims = std::move(dims);
  return t;
}

TypePtr tuple_type(std::vector<TypePtr> elems) {
  if (elems.size() == 1) return elems[0];
  if (elems.empty()) return unit_type();
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Tuple;
  t->elems = std::move(elems);
  return t;
}

TypePtr record_type(std::vector<std::pair<std::string, TypePtr>> fields) {
  std::sort(fields.begin(), fields.end(),
            [](const auto& a, const auto& b) { return field_less(a.first, b.first); });
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Record;
  t->fields = std::move(fields);
  return t;
}

TypePtr sum_type(std::vector<std::pair<std::string, std::vector<TypePtr>>> constructors) {
  std::sort(constructors.begin(), constructors.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Sum;
  t->constructors = std::move(constructors);
  return t;
}

TypePtr function_type(TypePtr param, TypePtr result, std::string param_name) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Function;
  t->param = std::move(param);
  t->result = std::move(result);
  t->param_name = std::move(param_name);
  return t;
}

TypePtr param_type(int var_id, std::string name) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Param;
  t->var_id = var_id;
  t->var_name = std::move(name);
  return t;
}

TypePtr unit_type() {
  static const TypePtr unit = [] {
    auto t = std::make_shared<Type>();
    t->kind = Type::Kind::Record;
    return TypePtr(t);
  }();
  return unit;
}

TypePtr row_type(const TypePtr& array) {
  if (array->kind != Type::Kind::Array) return array;
  if (array->dims.size() == 1) return array->elem;
  auto t = std::make_shared<Type>(*array);
  t->dims.erase(t->dims.begin());
  t->unique = false;
  return t;
}

int array_rank(const Type& t) {
  return t.kind == Type::Kind::Array ? static_cast<int>(t.dims.size()) : 0;
}

namespace {

// Precedence levels for printing: a function type binds loosest, then sum
// types (`#a | #b`), then everything else (atoms).
enum class Ctx { Top, FunParam, SumPayload, ArrayElem };

std::string show(const Type& t, Ctx ctx);

std::string show_dim(const Dim& d) {
  switch (d.kind) {
    case Dim::Kind::Constant: return fmt::format("[{}]", d.value);
    case Dim::Kind::Name: return show_size_name(d.name);
    case Dim::Kind::Unknown: return "[]";
  }
  return "[]";
}

std::string show_sum(const Type& t) {
  std::string out;
  for (size_t i = 0; i < t.constructors.size(); ++i) {
    if (i) out += " | ";
    out += "#" + t.constructors[i].first;
    for (const auto& p : t.constructors[i].second) out += " " + show(*p, Ctx::SumPayload);
  }
  return out;
}

std::string show(const Type& t, Ctx ctx) {
  std::string u = t.unique ? "*" : "";
  switch (t.kind) {
    case Type::Kind::Prim: return u + std::string(prim_name(t.prim));
    case Type::Kind::Param: return u + t.var_name;
    case Type::Kind::Array: {
      std::string out = u;
      for (const auto& d : t.dims) out += show_dim(d);
      return out + show(*t.elem, Ctx::ArrayElem);
    }
    case Type::Kind::Tuple: {
      std::string out = u + "(";
      for (size_t i = 0; i < t.elems.size(); ++i) {
        if (i) out += ", ";
        out += show(*t.elems[i], Ctx::Top);
      }
      return out + ")";
    }
    case Type::Kind::Record: {
      if (t.fields.empty()) return u + "()";
      std::string out = u + "{";
      for (size_t i = 0; i < t.fields.size(); ++i) {
        if (i) out += ", ";
        out += t.fields[i].first + ": " + show(*t.fields[i].second, Ctx::Top);
      }
      return out + "}";
    }
    case Type::Kind::Sum: {
      std::string s = show_sum(t);
      if (ctx == Ctx::Top && u.empty()) return s;
      return u + "(" + s + ")";
    }
    case Type::Kind::Function: {
      std::string param;
      if (!t.param_name.empty())
        param = fmt::format("({}: {})", t.param_name, show(*t.param, Ctx::Top));
      else
        param = show(*t.param, Ctx::FunParam);
      std::string s = param + " -> " + show(*t.result, Ctx::Top);
      if (ctx == Ctx::Top) return s;
      return "(" + s + ")";
    }
  }
  return "?";
}

}  // namespace

std::string to_string(const Type& t) { return show(t, Ctx::Top); }
std::string to_string(const TypePtr& t) { return t ? to_string(*t) : std::string("<untyped>"); }

bool any_part(const TypePtr& t, const std::function<bool(const Type&)>& pred) {
  if (!t) return false;
  if (pred(*t)) return true;
  switch (t->kind) {
    case Type::Kind::Array: return any_part(t->elem, pred);
    case Type::Kind::Tuple:
      for (const TypePtr& e : t->elems)
        if (any_part(e, pred)) return true;
      return false;
    case Type::Kind::Record:
      for (const auto& f : t->fields)
        if (any_part(f.second, pred)) return true;
      return false;
    default: return false;
  }
}

bool same_type(const Type& a, const Type& b, bool compare_dims) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Type::Kind::Prim: return a.prim == b.prim;
    case Type::Kind::Param: return a.var_id == b.var_id;
    case Type::Kind::Array:
      if (a.dims.size() != b.dims.size()) return false;
      if (compare_dims && a.dims != b.dims) return false;
      return same_type(*a.elem, *b.elem, compare_dims);
    case Type::Kind::Tuple:
      if (a.elems.size() != b.elems.size()) return false;
      for (size_t i = 0; i < a.elems.size(); ++i)
        if (!same_type(*a.elems[i], *b.elems[i], compare_dims)) return false;
      return true;
    case Type::Kind::Record:
      if (a.fields.size() != b.fields.size()) return false;
      for (size_t i = 0; i < a.fields.size(); ++i)
        if (a.fields[i].first != b.fields[i].first ||
            !same_type(*a.fields[i].second, *b.fields[i].second, compare_dims))
          return false;
      return true;
    case Type::Kind::Sum:
      if (a.constructors.size() != b.constructors.size()) return false;
      for (size_t i = 0; i < a.constructors.size(); ++i) {
        const auto& ca = a.constructors[i];
        const auto& cb = b.constructors[i];
        if (ca.first != cb.first || ca.second.size() != cb.second.size()) return false;
        for (size_t j = 0; j < ca.second.size(); ++j)
          if (!same_type(*ca.second[j], *cb.second[j], compare_dims)) return false;
      }
      return true;
    case Type::Kind::Function:
      return same_type(*a.param, *b.param, compare_dims) &&
             same_type(*a.result, *b.result, compare_dims);
  }
  return false;
}

}  // namespace thorn
