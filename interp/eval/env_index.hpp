#pragma once
// Checkpoint indexes over long chains of Local frames (env.hpp).
//
// Why: a `let` chain binds one frame per `let`, so a function body such as
// rodinia/myocyte's `ecc` (600 lets) looked every name up by walking
// hundreds of frames with string compares, and every miss (operators,
// top-level functions) walked all of them before reaching the module
// scope: half of that program's run time. Resolving names to slots ahead of
// time would need a resolver that mirrors every binding form of the
// evaluator (patterns, sizes, curried calls, loops, functors, the
// flattener's synthetic frames); instead the environment itself answers in
// O(1)-ish:
//
//  - when a Local frame is created more than kIndexRun frames after the
//    previous checkpoint (or the chain's start), it gets an EnvIndex: a hash
//    table of every name bound by the Local frames from itself back to the
//    nearest Scope frame, each mapped to its newest binding;
//  - lookup walks at most kIndexRun frames by name, then answers from the
//    checkpoint's table, or jumps straight past all indexed frames to the
//    Scope frame below them.
//
// The table is exact (it is built from the same frames the walk would
// visit, older first so newer bindings win), immutable once built and built
// before the frame is shared, so closures, shadowing, REPL redefinitions and
// worker threads see exactly what the plain walk saw. A checkpoint copies
// its predecessor's table (flat, trivially copyable slots), so a chain of n
// lets costs O(n^2 / kIndexRun) slot copies in all: a few microseconds for
// myocyte's chains.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace thorn::eval {

struct Env;
struct Binding;

// Frames walked by name before a checkpoint is made.
constexpr uint32_t kIndexRun = 12;

uint64_t name_hash(std::string_view name);
inline uint64_t bloom_bit(uint64_t hash) { return uint64_t(1) << (hash & 63); }

class EnvIndex {
 public:
  // The newest binding of `name` among the covered frames, or null.
  Binding* find(std::string_view name, uint64_t hash) const;
  // Binds `name` (stored in a frame the index's owner keeps alive),
  // replacing an older binding of the same name.
  void insert(const std::string* name, uint64_t hash, Binding* b);
  size_t size() const { return count_; }
  // Makes room for `n` names in all, so that inserting them rehashes nothing.
  void reserve(size_t n);

  // The first frame below the covered ones: a Scope frame, or null at the
  // root. A miss continues there.
  const Env* below = nullptr;

 private:
  struct Slot {
    uint64_t hash = 0;
    const std::string* name = nullptr;  // null: empty slot
    Binding* binding = nullptr;
  };
  void grow();
  void rehash(size_t size);
  std::vector<Slot> slots_;  // open addressing, power-of-two size, at most half full
  size_t count_ = 0;
};

// Sets up `e`, a Local frame just created and not yet shared: its names'
// Bloom filter, and a checkpoint when it is far enough from the previous
// one (e.run counts the frames since).
void index_new_frame(Env& e);

}  // namespace thorn::eval
