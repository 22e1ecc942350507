// thorn_gpu_hist_differential: the SegHist suite (support/hist_suite.cpp)
// and a stress run of random launches, on the GPU or, with --emulate, on
// the kernel emulator (support/suite_main.hpp). Fails if no histogram
// kernel was launched.
//
//   thorn_gpu_hist_differential [--emulate] [--work-dir DIR] [--stress N] [--filter TEXT] [-v]
#include "tests/gpu/support/hist_suite.hpp"
#include "tests/gpu/support/suite_main.hpp"

int main(int argc, char** argv) {
  namespace test = thorn::gpu::test;
  return test::suite_main(argc, argv, {"hist", test::run_hist_suite, test::run_hist_stress, "seghist", "histogram"},
                          THORN_EMU_WORK_DIR);
}
