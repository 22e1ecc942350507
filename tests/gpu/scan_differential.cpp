// thorn_gpu_scan_differential: the SegScan suite (support/scan_suite.cpp)
// and a stress run of random launches, on the GPU or, with --emulate, on
// the kernel emulator (support/suite_main.hpp).
//
//   thorn_gpu_scan_differential [--emulate] [--work-dir DIR] [--stress N] [--filter TEXT] [-v]
#include "tests/gpu/support/scan_suite.hpp"
#include "tests/gpu/support/suite_main.hpp"

int main(int argc, char** argv) {
  namespace test = thorn::gpu::test;
  return test::suite_main(argc, argv, {"scan", test::run_scan_suite, test::run_scan_stress, "", ""}, THORN_EMU_WORK_DIR);
}
