#pragma once
// The abstract syntax tree of Futhark programs, as produced by the parser
// (interp/syntax) and annotated in place by the type checker (interp/types):
// the checker fills the `type` slots, the literal types, and the
// instantiations of polymorphic names. The evaluator walks the annotated tree
// (the "core" of DESIGN.md is this annotated tree after the parser's
// desugaring of `let xs[i] = v`, `loop x for ...` shorthands and similar).
//
// Ownership: nodes are held by shared_ptr and never mutated after checking,
// so closures and plan caches may keep pointers to them for as long as the
// program they came from is loaded.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/core/prim.hpp"
#include "interp/types/type.hpp"
#include "interp/util/source.hpp"

namespace thorn {

struct Type;  // interp/types/type.hpp
using TypePtr = std::shared_ptr<const Type>;

struct Expr;
struct Pattern;
struct TypeExpr;
struct Decl;
struct ModExpr;
struct SigExpr;
using ExprPtr = std::shared_ptr<Expr>;
using PatternPtr = std::shared_ptr<Pattern>;
using TypeExprPtr = std::shared_ptr<TypeExpr>;
using DeclPtr = std::shared_ptr<Decl>;
using ModExprPtr = std::shared_ptr<ModExpr>;
using SigExprPtr = std::shared_ptr<SigExpr>;

// A possibly qualified name: `x`, `i32.max`, `M.N.f`. Operators are names too
// (`+`, `i32.+`). Constructors are stored without their `#`.
struct QualName {
  std::vector<std::string> qualifiers;
  std::string name;
  std::string str() const;  // "M.N.f"
  bool operator==(const QualName&) const = default;
};

// Whether a name is an operator (`+`, `<|>`) rather than an identifier.
bool is_symbolic(const std::string& name);

// ---------------------------------------------------------------- types

// A size in a type expression: `[n]`, `[3]`, `[]` (anonymous). Futhark also
// allows arbitrary size expressions (`[n*m]t`, used by its own prelude);
// the parser keeps those as Kind::Expr for the checker to accept or reject.
struct SizeExpr {
  enum class Kind { Anonymous, Constant, Name, Expr };
  Kind kind = Kind::Anonymous;
  int64_t value = 0;
  QualName name;
  ExprPtr expr;  // Kind::Expr
  Loc loc;
};

struct TypeArg {  // an argument to a parametric type abbreviation: `vec [n] f32`
  bool is_size = false;
  SizeExpr size;
  TypeExprPtr type;
};

struct TypeExpr {
  enum class Kind {
    Name,       // a primitive or abbreviation, possibly qualified, with args
    Array,      // [size]elem
    Tuple,      // (a, b, c)
    Record,     // {a: t, b: u}
    Sum,        // #foo i32 | #bar
    Function,   // t -> u  or  (x: t) -> u
    Unique,     // *t
    Existential // ?[n][m].t
  };
  Kind kind = Kind::Name;
  Loc loc;
  QualName name;
  std::vector<TypeArg> args;
  SizeExpr size;
  TypeExprPtr elem;  // Array element, Unique/Existential body
  std::vector<TypeExprPtr> elems;
  std::vector<std::pair<std::string, TypeExprPtr>> fields;  // in source order
  std::vector<std::pair<std::string, std::vector<TypeExprPtr>>> constructors;
  std::string param_name;  // Function: the `x` of `(x: t) -> u`, or empty
  TypeExprPtr param, result;
  std::vector<std::string> existentials;
};

// A type or size parameter of a definition: 'a, '^a, '~a, [n].
struct TypeParam {
  std::string name;
  bool is_size = false;
  bool lifted = false;  // '^ (may be a function) or '~ (may have sizes)
  Loc loc;
};

// ---------------------------------------------------------------- patterns

struct Pattern {
  enum class Kind {
    Id,          // x
    Wildcard,    // _
    Tuple,       // (p, q)
    Record,      // {a = p, b}   (field without `= p` binds a variable of that name)
    Literal,     // 1, true, -2.0, 'c' (only in match)
    Constructor, // #foo p q     (only in match)
    Ascribed,    // p : t
  };
  Kind kind = Kind::Id;
  Loc loc;
  std::string name;                                       // Id; Constructor (without #)
  std::vector<PatternPtr> elems;                          // Tuple; Constructor payload
  std::vector<std::pair<std::string, PatternPtr>> fields; // Record, source order
  ExprPtr literal;                                        // Literal (a literal Expr)
  PatternPtr inner;                                       // Ascribed
  TypeExprPtr ascription;                                 // Ascribed
  TypePtr type;                                           // filled by the checker
};

// ---------------------------------------------------------------- expressions

struct IndexArg {  // one component of xs[...]: an index or a slice a:b:s
  bool is_slice = false;
  ExprPtr index;               // when !is_slice
  ExprPtr start, end, stride;  // when is_slice; each may be null
};

struct Case {  // one arm of `match`
  PatternPtr pattern;
  ExprPtr body;
  Loc loc;
};

struct Expr {
  enum class Kind {
    IntLit,      // 1, 0xff, 1_000i64; `value_u` holds the magnitude (negation is Negate)
    FloatLit,    // 1.5, 2f32, 1e-3
    BoolLit,
    StringLit,   // "abc" : []u8
    Var,         // x, i32.max, (+) is OpSection without operands
    Apply,       // fn args...  (curried application of one or more arguments)
    BinOp,       // lhs op rhs (op may be user-defined or backticked: x `f` y)
    Negate,      // -e
    Not,         // !e
    OpSection,   // (+), (+ e) [rhs set], (e +) [lhs set]
    ProjSection, // (.a.b) : function projecting a field path
    IndexSection,// (.[i]) : function indexing
    Lambda,      // \p q : t -> e
    Let,         // let pat = value in body
    LetFun,      // let f 'a [n] p q : t = fn_body in body
    If,
    Loop,
    Match,
    Tuple,
    Record,      // {a = e, b} (field b alone means b = b)
    Project,     // e.a  / e.0
    ArrayLit,
    Range,       // a..b, a..<b, a..>b, a..s...b (s is the second element)
    Index,       // e[i, j:k]
    Update,      // e with [idx] = v
    RecordUpdate,// e with a.b = v
    Ascribe,     // e : t
    Coerce,      // e :> t
    Assert,      // assert cond e
    Constructor, // #foo e1 e2
    Attr,        // #[attr] e
    Intrinsic,   // __intrinsic "name" args... (thorn's prelude): text = name, list = args
    QualParens,  // M.(e): e with module M opened locally; name = M, a = e
  };
  enum class RangeKind { Inclusive, UpToExclusive, DownToExclusive };
  enum class LoopForm { For, ForIn, While };

  Kind kind;
  Loc loc;
  TypePtr type;  // filled by the checker: the type of this expression (zonked)

  // IntLit / FloatLit / BoolLit / StringLit
  uint64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string text;                  // StringLit contents (decoded); literal source text
  std::optional<Prim> suffix;        // explicit suffix (1i64, 2f32)
  Prim prim = Prim::I32;             // filled by the checker: the literal's resolved type

  // Var / BinOp operator / OpSection operator / Constructor / LetFun name / Attr
  QualName name;
  // filled by the checker for Var that refers to a polymorphic binding: the
  // types its quantified variables are instantiated with (aligned with the
  // binding's `quantified` list).
  std::vector<TypePtr> instantiation;
  // Var naming a function with size parameters: the sizes the checker
  // instantiated them with at this use (only those it found: a constant, a
  // name, or an expression of local names), for the evaluator to bind the
  // sizes no argument gives (`def f [n][m] (xs: [n * m]t)` at `f (flatten ys)`).
  std::vector<std::pair<std::string, Dim>> size_args;

  // Sub-expressions. Meaning by kind:
  //   Apply: fn=a, args=list              BinOp: a op b
  //   Negate/Not/Project/Ascribe/Coerce/Attr/Constructor-less: a
  //   OpSection: a (left operand, may be null), b (right operand, may be null)
  //   If: a cond, b then, c else          Let: a value, b body
  //   LetFun: a function body, b body     Loop: a init (may be null), b body, c bound/array/cond
  //   Range: a start, b second (may be null), c end
  //   Index: a array, indices             Update: a array, indices, b value
  //   RecordUpdate: a record, fields path, b value
  //   Assert: a cond, b body              Match: a scrutinee, cases
  //   Lambda: params, ret_type (may be null), a body
  //   Tuple/ArrayLit/Constructor: list
  //   Record: fields (name, expr)
  ExprPtr a, b, c;
  std::vector<ExprPtr> list;
  std::vector<std::pair<std::string, ExprPtr>> fields;
  std::vector<std::string> field_path;  // Project (one name), ProjSection, RecordUpdate, Update (`r with a.b[i] = v`)
  std::vector<IndexArg> indices;
  std::vector<Case> cases;

  // Lambda / LetFun / Let / Loop binding parts
  std::vector<TypeParam> type_params;  // LetFun; Let/Loop size params `let [n] ...`
  std::vector<PatternPtr> params;      // Lambda/LetFun params; Loop: params[0] is the loop pattern
  PatternPtr pattern;                  // Let pattern; Loop ForIn element pattern
  TypeExprPtr ret_type;                // Lambda/LetFun return ascription; Ascribe/Coerce target
  std::vector<int> quantified;         // LetFun: checker's quantified type variable ids

  RangeKind range_kind = RangeKind::Inclusive;
  LoopForm loop_form = LoopForm::For;
  std::string loop_var;                // For: the `i` of `for i < n`
  std::vector<std::string> attrs;      // Attr: the attribute texts, e.g. "trace", "unroll"
};

// ---------------------------------------------------------------- declarations

struct SpecItem;  // a module type's specification
using SpecItemPtr = std::shared_ptr<SpecItem>;

struct SigExpr {  // module type expression
  enum class Kind { Name, Specs, With, Arrow };
  Kind kind = Kind::Specs;
  Loc loc;
  QualName name;                     // Name
  std::vector<SpecItemPtr> specs;    // Specs: sig { ... }
  SigExprPtr base;                   // With: base with name = type; Arrow: param sig
  QualName with_name;                // With
  std::vector<TypeParam> with_params;
  TypeExprPtr with_type;
  std::string arrow_param;           // Arrow: (p: S) -> T
  SigExprPtr arrow_result;
};

struct SpecItem {  // one line of a module type
  enum class Kind { Val, Type, Module, Include };
  Kind kind = Kind::Val;
  Loc loc;
  std::string name;
  std::vector<TypeParam> type_params;
  TypeExprPtr type;       // Val: its type; Type: definition or null when abstract
  bool lifted = false;    // type ^t / type ~t
  SigExprPtr sig;         // Module / Include
};

struct ModExpr {
  enum class Kind { Struct, Name, Apply, Ascribe, Import, Lambda };
  Kind kind = Kind::Struct;
  Loc loc;
  std::vector<DeclPtr> decls;  // Struct
  QualName name;               // Name
  ModExprPtr fn, arg;          // Apply (fn arg); Ascribe (fn : sig); Lambda body in fn
  SigExprPtr sig;              // Ascribe, Lambda param signature
  std::string param;           // Lambda: \(p: S) -> body
  std::string path;            // Import
  std::shared_ptr<struct Program> imported;  // Import: the loaded file, set by the session's loader before checking
  // Apply that supplies a functor's last argument: a copy of the functor's
  // body checked for these arguments (filled by the checker). Evaluate it
  // with the functor's parameters bound to the argument modules.
  ModExprPtr instance;
};

struct Decl {
  enum class Kind {
    Value,       // def / let / entry
    Type,        // type t 'a [n] = ...
    Module,      // module M (params) : S = m
    ModuleType,  // module type S = sig
    Open,        // open m
    Import,      // import "path"
    Local,       // local decl
  };
  Kind kind = Kind::Value;
  Loc loc;
  std::string name;                  // Value/Type/Module/ModuleType (operators: "+", "<*>")
  bool entry = false;                // Value: declared with `entry`
  std::vector<std::string> attrs;    // #[...] on the declaration
  std::vector<TypeParam> type_params;
  std::vector<PatternPtr> params;    // Value
  TypeExprPtr ret_type;              // Value return type (may be null); Type: definition
  ExprPtr body;                      // Value
  bool lifted = false;               // Type: type^ / type~
  std::vector<std::pair<std::string, SigExprPtr>> module_params;  // Module: functor params
  SigExprPtr sig;                    // Module: ascription; ModuleType: definition
  ModExprPtr module;                 // Module: definition; Open: the opened module
  std::string path;                  // Import (as written, without .fut)
  std::shared_ptr<struct Program> imported;  // Import: the loaded file, set by the session's loader before checking
  DeclPtr inner;                     // Local
  std::vector<int> quantified;       // Value: checker's quantified type variable ids
  TypePtr type;                      // Value: checker's full (function) type
};

struct Program {
  const SourceFile* file = nullptr;
  std::vector<DeclPtr> decls;
};

}  // namespace thorn
