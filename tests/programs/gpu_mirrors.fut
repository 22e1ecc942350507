-- Eight host arrays read by GPU plans one after another, all of them kept
-- alive, then the first one again. On a device too small for all their
-- copies (tests/gpu/emulated_faults.sh runs this with THORN_EMU_MEMORY) the
-- least recently used copies are dropped and uploaded again when needed,
-- instead of the plans failing over to the host.
-- ==
-- input { [1i64, 2i64] [3i64] [4i64] [5i64] [6i64] [7i64] [8i64] [9i64, 1i64] }
-- output { [3i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 10i64, 3i64] }
def main (a: []i64) (b: []i64) (c: []i64) (d: []i64) (e: []i64) (f: []i64) (g: []i64) (h: []i64) : [9]i64 =
  [i64.sum a, i64.sum b, i64.sum c, i64.sum d, i64.sum e, i64.sum f, i64.sum g, i64.sum h, i64.sum a]
