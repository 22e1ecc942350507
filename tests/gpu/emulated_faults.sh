#!/usr/bin/env bash
# Fault paths of the real thorn binary on the emulated GPU, with faults
# injected by the emulator (THORN_EMU_FAULT, tests/gpu/emulator/driver.cpp):
# a device fault or an out-of-memory leaves thorn on the host with one line
# on stderr and the right results (values made on the device before the
# fault are recomputed: interp/exec/gpu_recovery.hpp); a failed compile is
# remembered, not retried.
#   emulated_faults.sh THORN EMU_LIB PROGRAMS_DIR
set -u
thorn=$1 lib=$2 programs=$3
export THORN_LIBCUDA=$lib THORN_GPU_THRESHOLD=0 THORN_HOST_MIN_WORK=0
fail() { echo "FAIL: $*"; exit 1; }
report=$(mktemp) err=$(mktemp)
trap 'rm -f "$report" "$err"' EXIT
expected=$'15000350000i64\n299997i64\n75000250000i64'

# run FAULT: runs gpu_faults.fut with the fault; checks the results and that
# stderr has exactly one line, naming a GPU failure.
run() {
  : >"$report"
  out=$(echo 100000 | THORN_EMU_FAULT=$1 THORN_EMU_REPORT=$report "$thorn" run --backend gpu \
    "$programs/gpu_faults.fut" 2>"$err") || fail "$1: thorn exited with $?: $(cat "$err")"
  [ "$out" = "$expected" ] || fail "$1: wrong result: $out"
  echo "$1: $(cat "$err")"
  cat "$report"
  [ "$(wc -l <"$err")" -eq 1 ] && grep -q "GPU failure" "$err" || fail "$1: stderr is not one line: $(cat "$err")"
}

# Sticky faults: at the first launch (the scatter), and at later ones (the
# reductions, when the scatter's result is only on the device and must be
# recomputed on the host).
run illegal_address@1
run illegal_address@4
run timeout@2
# After a sticky fault nothing more runs on the device.
launches=$(sed -n 's/.* \([0-9]*\) launches.*/\1/p' "$report")
[ "$launches" -le 1 ] || fail "timeout@2: $launches launches after the fault"

# The results that were only on the device are recomputed on the host
# (device_resident.fut downloads nothing else before the fault).
msg=$(echo 100000 | THORN_EMU_FAULT=illegal_address@2 THORN_DEBUG_RECOVERY=1 "$thorn" run --backend gpu \
  "$programs/device_resident.fut" 2>&1) || fail "recovery: thorn exited with $?: $msg"
grep -q "^recovery: recomputing" <<<"$msg" || fail "recovery: nothing was recomputed: $msg"
grep -q "^14999850000i64" <<<"$msg" || fail "recovery: wrong result: $msg"

# Out of memory twice in a row (the pool's retry after freeing its cache
# fails too): that plan runs on the host, later ones on the GPU again.
run oom@1,oom@2
launches=$(sed -n 's/.* \([0-9]*\) launches.*/\1/p' "$report")
[ "$launches" -gt 0 ] || fail "oom: the GPU was not used again after an out-of-memory"

# A failed compile (fresh kernel caches, so kernels are really compiled)
# of the reduction in the second loop: remembered, so the loop's other four
# iterations do not ask for it again.
cache=$(mktemp -d)
trap 'rm -rf "$report" "$err" "$cache"' EXIT
: >"$report"
echo 100000 | THORN_CACHE_DIR=$cache/a THORN_EMU_WORK_DIR=$cache/emu THORN_EMU_REPORT=$report \
  "$thorn" run --backend gpu "$programs/gpu_faults.fut" >/dev/null || fail "run without faults"
baseline=$(sed -n 's/.*(\([0-9]*\) compile requests).*/\1/p' "$report")
THORN_CACHE_DIR=$cache/b THORN_EMU_WORK_DIR=$cache/emu run compile@2
requests=$(sed -n 's/.*(\([0-9]*\) compile requests).*/\1/p' "$report")
[ -n "$requests" ] && [ "$requests" -le "$baseline" ] ||
  fail "compile: $requests compile requests, $baseline without the fault (a failed compile was retried)"
# A module the driver cannot load (as a driver older than NVRTC rejects its
# cubins): loaded again as PTX, silently, and the plan stays on the GPU.
out=$(echo 100000 | THORN_EMU_FAULT=load@1 "$thorn" run --backend gpu "$programs/gpu_faults.fut" 2>"$err") ||
  fail "load: thorn exited with $?: $(cat "$err")"
[ "$out" = "$expected" ] || fail "load: wrong result: $out"
[ ! -s "$err" ] || fail "load: stderr: $(cat "$err")"
echo "load: ok"

# A device too small for every input's copy (8 arrays of 8 MB, 40 MB of
# device memory): the older copies are dropped (least recently used) instead
# of the plans failing over to the host; nothing is printed.
data=$(mktemp)
trap 'rm -rf "$report" "$err" "$cache" "$data"' EXIT
"$thorn" dataset -b $(for i in 1 2 3 4 5 6 7 8; do printf -- '-g [1000000]i64 '; done) >"$data" ||
  fail "eviction: thorn dataset failed"
sums=$(THORN_EMU_MEMORY=40000000 "$thorn" run --backend gpu "$programs/gpu_mirrors.fut" <"$data" 2>"$err") ||
  fail "eviction: thorn exited with $?: $(cat "$err")"
[ ! -s "$err" ] || fail "eviction: stderr: $(cat "$err")"
expected_sums=$("$thorn" run --backend host "$programs/gpu_mirrors.fut" <"$data") || fail "eviction: host run failed"
[ "$sums" = "$expected_sums" ] || fail "eviction: $sums, host: $expected_sums"
echo "eviction: ok"

# Histograms (gpu_hist_faults.fut: the shared-memory update, then the
# combine, then a reduction): a device fault in the update kernel or in the
# combine kernel (the destination then holds partial sums on the device),
# a timeout, a failed compile: one line, then the right result on the host.
hist_expected=$'4985037973i64\n4949703i64'
for fault in illegal_address@1 illegal_address@2 timeout@2 compile@1; do
  out=$(echo 100000 | THORN_EMU_FAULT=$fault THORN_CACHE_DIR=$(mktemp -d) "$thorn" run --backend gpu \
    "$programs/gpu_hist_faults.fut" 2>"$err") || fail "hist $fault: thorn exited with $?: $(cat "$err")"
  [ "$out" = "$hist_expected" ] || fail "hist $fault: wrong result: $out"
  [ "$(wc -l <"$err")" -eq 1 ] && grep -q "GPU failure" "$err" || fail "hist $fault: stderr: $(cat "$err")"
done
echo "histogram faults: ok"
echo "ok"
