#pragma once
// Memory as a resource the program can run out of: an allocation that
// cannot be satisfied is a run-time error of the program (OutOfMemory),
// raised before anything is allocated, naming the requested size and what
// is available. Its location is filled in on the way out by the first
// evaluator call that knows one (Evaluator::apply), else by the session
// (the whole input), so the REPL reports it like any other run-time error
// and goes on.
//
// What is available: THORN_MEMORY_LIMIT (bytes, with an optional K/M/G/T
// suffix) minus the bytes that live array buffers hold, when set; else the
// system's MemAvailable plus free swap (/proc/meminfo), read only for large
// requests. A request beyond that would only end in the OOM killer.
#include <cstdint>
#include <optional>
#include <string_view>
#include <string>

#include "interp/util/error.hpp"

namespace thorn {

class OutOfMemory : public Error {
 public:
  OutOfMemory(Loc loc, std::string message) : Error(ErrorKind::Runtime, loc, std::move(message)) {}
};

// Throws OutOfMemory unless `count` elements of `elem_bytes` bytes each
// (described as `what`, e.g. "i64") can be allocated now.
void check_allocation(int64_t count, int64_t elem_bytes, std::string_view what);
// Books `bytes` as live (an allocation that succeeded) / released.
void note_allocated(uint64_t bytes) noexcept;
void note_released(uint64_t bytes) noexcept;
uint64_t live_buffer_bytes() noexcept;

// Bytes available to new arrays (see above).
uint64_t memory_available();
// An allocation failed anyway (std::bad_alloc): the error to raise instead.
OutOfMemory out_of_memory_error(const Loc& loc, std::optional<uint64_t> requested = std::nullopt);
// "7.28 TiB"
std::string format_bytes(uint64_t bytes);

}  // namespace thorn
