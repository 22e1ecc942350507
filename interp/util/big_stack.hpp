#pragma once
// Running a function on a thread with a large stack (evaluation recurses on
// the native stack; see interp/eval/session.cpp). Each calling thread gets
// one such helper thread, created on first use and kept until the calling
// thread exits: a session's calls (an entry point called by `thorn bench`
// again and again) no longer create a thread each, whose 512 MiB stack
// mapping, first-touch page faults and exit cost 30-50 µs a call and took
// the evaluator's thread-local state with it. Calls from the helper itself
// (nested) run inline.
#include <cstddef>
#include <functional>

namespace thorn {

// Runs body on a thread with a stack of `stack_bytes` (the first call of a
// calling thread fixes the size) and waits for it; an exception thrown by
// body is rethrown here. Without a thread (resource limits) body runs on
// the calling thread.
void run_on_big_stack(const std::function<void()>& body, size_t stack_bytes);

}  // namespace thorn
