#!/usr/bin/env bash
# The real-program tests of this folder on the host backend with every nest
# flattened: they must pass and no SOAC call may fall back to the reference
# backend (the plan log says "runs on the reference backend" for those).
#   no_fallbacks.sh THORN DIR
set -u
thorn=$1 dir=$2
out=$(THORN_LOG_PLAN=1 THORN_HOST_MIN_WORK=0 "$thorn" test --backend host "$dir"/*.fut 2>&1)
status=$?
if grep "runs on the reference backend" <<<"$out"; then
  echo "FAIL: a nest fell back to the reference backend (above)"
  exit 1
fi
tail -1 <<<"$out"
exit $status
