#pragma once
// Run-time values. Scalars are unboxed; arrays are shape + storage:
//
//  - an array of a primitive type is a flat, row-major Buffer of that type
//    (any rank), viewed through an element offset, so rows of a matrix are
//    views and not copies;
//  - an array of tuples or records is stored as a tuple/record of arrays
//    ("structure of arrays"), every component having the same outer shape;
//  - arrays of anything else (sum types, functions) are boxed: one Value per
//    element.
//
// Values are immutable and shared (copying a Value copies pointers). In-place
// updates mutate a buffer only when the Value holds the last reference to it;
// otherwise they copy first (Futhark's uniqueness rules make that rare).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "interp/core/prim.hpp"

namespace thorn {

struct Value;

// Flat storage for elements of one primitive type. A buffer may live on the
// host, on the GPU, or both (gpu/memory owns the device side): `host()`
// downloads on first need through the residency hook, once.
class Buffer : public std::enable_shared_from_this<Buffer> {  // (the GPU's residency keeps weak references)
 public:
  Buffer(Prim elem, int64_t count);            // zero-initialised host buffer
  // Uninitialised host buffer, for outputs that are about to be written
  // completely (the host executor, delayed arrays): skips a pass over memory.
  struct NoInit {};
  Buffer(Prim elem, int64_t count, NoInit);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  Prim elem() const { return elem_; }
  int64_t count() const { return count_; }
  size_t bytes() const { return size_t(count_) * size_t(prim_bytes(elem_)); }

  // Reading and writing are separate accessors, so that no write can leave
  // a stale device copy behind (gpu/memory/residency.hpp):
  //  - host(): the contents, for reading; downloads them if only the device
  //    (or a delayed producer) holds them, and keeps the device copy as a
  //    mirror;
  //  - host_mut(): the contents, for writing; downloads them likewise, then
  //    drops the device copy, which the caller is about to make stale. Take
  //    it right before writing (not before a GPU plan may upload the buffer
  //    again).
  const std::byte* host() const { return const_cast<Buffer*>(this)->current_host(); }
  std::byte* host_mut() {
    std::byte* p = current_host();
    if (device || !host_valid) host_written();  // only reads when already host-only (worker threads)
    return p;
  }
  template <class T> const T* data() const { return reinterpret_cast<const T*>(host()); }
  template <class T> T* data_mut() { return reinterpret_cast<T*>(host_mut()); }

  // Device residency, managed by gpu/memory. `device` is opaque here.
  struct DeviceSide {
    virtual ~DeviceSide() = default;
    virtual void download(std::byte* host, size_t bytes) = 0;  // device -> host
    // True for a copy in GPU memory (gpu::DeviceCopy), false for a delayed
    // producer (interp/flatten/delayed.hpp).
    virtual bool in_device_memory() const { return false; }
  };
  std::shared_ptr<DeviceSide> device;  // null when not on the GPU
  bool host_valid = true;              // false: the device copy is the only current one
  void mark_device_only() { host_valid = false; }
  // Before a buffer becomes a plan's input: runs a delayed producer now, on
  // this thread; contents in GPU memory stay there (the plan may run on the
  // GPU; the host executor downloads its inputs itself).
  void materialise_delayed() {
    if (!host_valid && device && !device->in_device_memory()) current_host();
  }
  // The host copy is the only current one: drops a device copy (host_mut()
  // does this; so does the GPU executor when a kernel failed half-way).
  void host_written() {
    device.reset();
    host_valid = true;
  }

 private:
  std::byte* current_host();  // downloads when only the device copy is current
  Prim elem_;
  int64_t count_;
  std::byte* host_ = nullptr;
};
using BufferPtr = std::shared_ptr<Buffer>;

struct ArrayValue;
using ArrayPtr = std::shared_ptr<const ArrayValue>;

struct ADValue;  // a scalar carrying a derivative (jvp/vjp); interp/core/ad_value.hpp
using ADPtr = std::shared_ptr<const ADValue>;

struct Callable;  // a function value (closure, intrinsic, partial application); defined by interp/eval
using CallablePtr = std::shared_ptr<const Callable>;

// Record fields are kept in Futhark's order, the same as Type's (field_less
// in type.hpp): numeric names first, numerically, then alphabetically.
bool record_field_less(const std::string& a, const std::string& b);

struct Value {
  // AD: a floating-point scalar inside jvp/vjp, carrying a tangent or a
  // place on a tape (ad_value.hpp); it exists only while they run.
  enum class Kind : uint8_t { Scalar, Array, Tuple, Record, Sum, Function, AD };
  Kind kind = Kind::Scalar;
  Scalar scalar;                                     // Scalar
  ArrayPtr array;                                    // Array
  std::shared_ptr<const std::vector<Value>> elems;   // Tuple, Record (sorted by record_field_less), Sum payload
  std::shared_ptr<const std::vector<std::string>> names;  // Record field names (sorted); Sum: {constructor}
  CallablePtr fn;                                    // Function
  ADPtr ad;                                          // AD

  Value() = default;
  Value(Scalar s) : kind(Kind::Scalar), scalar(s) {}  // NOLINT: implicit is convenient

  static Value make_array(ArrayPtr a);
  static Value tuple(std::vector<Value> elems);   // one element gives that element; zero: unit
  static Value record(std::vector<std::pair<std::string, Value>> fields);  // sorts by name
  static Value sum(std::string constructor, std::vector<Value> payload);
  static Value function(CallablePtr f);
  static Value unit() { return tuple({}); }
  static Value differentiable(ADPtr a);

  bool is_array() const { return kind == Kind::Array; }
  const ArrayValue& arr() const { return *array; }
  const std::string& constructor() const { return (*names)[0]; }  // Sum
  // A record field, or a tuple component by position ("0", "1", ...); null if absent.
  const Value* field(const std::string& name) const;
};

// The structure of one array element, needed for empty arrays and for
// building arrays of tuples/records: a tree mirroring the element type with
// primitive leaves. (Sizes of inner array dimensions live in the shape.)
struct ElemShape {
  enum class Kind : uint8_t { Prim, Tuple, Record, Boxed };
  Kind kind = Kind::Prim;
  Prim prim = Prim::I32;
  std::vector<ElemShape> children;   // Tuple/Record
  std::vector<std::string> names;    // Record field names, sorted
  // Boxed arrays of scalars of type `prim`, some carrying derivatives
  // (Value::Kind::AD): what arrays of floats become inside jvp/vjp.
  bool ad = false;
};

struct ArrayValue {
  // Full shape of this array value. For SoA arrays (tuples/records) this is
  // the *outer* shape, shared by every component; components may have more
  // dimensions (an array of tuples of arrays).
  std::vector<int64_t> shape;
  ElemShape elem;               // element structure below the outer shape

  // Prim elements: flat data, row-major, starting at `offset` elements in.
  BufferPtr buffer;
  int64_t offset = 0;

  // Tuple/Record elements: one array per field, each with `shape` as prefix.
  std::vector<ArrayPtr> components;

  // Boxed elements: product(shape) values, row-major, starting at `offset`
  // (so rows of boxed arrays are views too).
  std::shared_ptr<const std::vector<Value>> boxed;

  int rank() const { return int(shape.size()); }
  int64_t outer() const { return shape.empty() ? 0 : shape[0]; }
  int64_t count() const;        // product of the shape
  int64_t row_elems() const;    // product of shape[1..]: elements per row
};

// ------------------------------------------------------------- construction

// A fresh zeroed array of primitive elements with the given full shape.
ArrayPtr make_prim_array(Prim p, std::vector<int64_t> shape);
ArrayPtr make_prim_array(BufferPtr buffer, std::vector<int64_t> shape, int64_t offset = 0);
// An empty or filled array whose elements are described by `elem`; for
// Prim, `shape` is the full shape. Used for empty results and builders.
ArrayPtr make_empty_array(const ElemShape& elem, std::vector<int64_t> shape);
// Builds an array from its rows (all of the same shape and structure); the
// rows may be scalars, tuples, records, arrays, sums. `elem_hint` is used when
// rows is empty.
Value array_from_rows(const std::vector<Value>& rows, const ElemShape* elem_hint = nullptr);

// ------------------------------------------------------------- access

Value array_row(const ArrayValue& a, int64_t i);     // a[i]; a view for prim arrays
int64_t array_length(const Value& v);                 // outer size of an array value
Scalar prim_element(const ArrayValue& a, int64_t flat);  // a prim array's element at flat index (relative)
ElemShape elem_shape_of(const Value& v);              // structure of a value used as an element

// Arrays of scalars that may carry derivatives (ElemShape::ad): `box_scalars`
// turns a primitive array into one (same shape, a Value per element);
// `unbox_scalars` turns one whose elements are all plain scalars back.
ArrayPtr box_scalars(const ArrayValue& a);
bool holds_ad_scalars(const ArrayValue& a);
ArrayPtr unbox_scalars(const ArrayValue& a);

// A copy with its own storage (for in-place updates on shared data).
ArrayPtr copy_array(const ArrayValue& a);

// Raw element access for one primitive element stored at `p` (bool is one
// byte, f16 its IEEE half bits).
Scalar load_scalar(Prim p, const std::byte* at);
void store_scalar(std::byte* at, const Scalar& s);  // s.type must be the buffer's element type

}  // namespace thorn
