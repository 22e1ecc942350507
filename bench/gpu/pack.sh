#!/usr/bin/env bash
# Packs the GPU test and benchmark programs, built here, for a device machine
# whose image lacks thorn's build dependencies (fmt, Boost, ...):
#   bench/gpu/pack.sh [BUILD_DIR]   ->  gpu-carry/ at the repository root
# gpu-carry/ holds stripped executables, cub_peer and the shared libraries
# they need beyond glibc and libstdc++. Keep it out of git
# (echo /gpu-carry/ >> .git/info/exclude) and carry it to the device, where
# bench/gpu/run.sh and tests/gpu/run_on_device.sh find it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build-gpu}"
dest="$root/gpu-carry"
ninja -C "$build" -j2 thorn thorn_gpu_bench thorn_gpu_differential thorn_gpu_scan_differential \
  thorn_gpu_hist_differential thorn_nvrtc_check
rm -rf "$dest"
mkdir -p "$dest/lib"
for exe in thorn bench/gpu/thorn_gpu_bench tests/gpu/thorn_gpu_differential tests/gpu/thorn_gpu_scan_differential \
    tests/gpu/thorn_gpu_hist_differential tests/gpu/thorn_nvrtc_check; do
  cp "$build/$exe" "$dest/"
  strip --strip-debug "$dest/$(basename "$exe")"
  # Libraries other than the C/C++ runtime travel along.
  ldd "$build/$exe" | awk '/=> \// {print $3}' | grep -Ev '/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+)\.so' |
    while read -r lib; do cp -L "$lib" "$dest/lib/"; done
done
[ -x "$build/cub_peer" ] || "$here/build.sh" "$build"
cp "$build/cub_peer" "$dest/"
du -sh "$dest"
ls "$dest" "$dest/lib"
