#include "gpu/memory/residency.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "gpu/driver/cuda.hpp"
#include "gpu/driver/device.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu {

namespace {
std::mutex stats_mu;
TransferStats stats;

// Buffers that received a mirror (weak: the registry keeps nothing alive),
// and the clock that stamps each use of a device copy.
std::mutex mirrors_mu;
std::vector<std::weak_ptr<Buffer>> mirrors;
uint64_t use_clock = 0;

void touch(DeviceCopy& dc) {
  std::lock_guard<std::mutex> lock(mirrors_mu);
  dc.last_use = ++use_clock;
}

void remember_mirror(const Device& device, Buffer& buf) {
  std::weak_ptr<Buffer> w = buf.weak_from_this();
  if (w.expired()) return;  // not owned by a shared_ptr: nothing to find it by
  static std::once_flag hook_once;
  std::call_once(hook_once, [&] { DevicePool::get(device).set_pressure_hook(evict_mirrors); });
  std::lock_guard<std::mutex> lock(mirrors_mu);
  for (const std::weak_ptr<Buffer>& m : mirrors)
    if (!m.owner_before(w) && !w.owner_before(m)) return;  // already known
  if (mirrors.size() >= 1024)  // forget buffers that are gone
    mirrors.erase(std::remove_if(mirrors.begin(), mirrors.end(), [](const auto& m) { return m.expired(); }),
                  mirrors.end());
  mirrors.push_back(std::move(w));
}
}  // namespace

size_t evict_mirrors(size_t want) {
  struct Candidate {
    uint64_t last_use;
    size_t bytes;
    std::shared_ptr<Buffer> buf;
  };
  std::vector<Candidate> candidates;
  {
    std::lock_guard<std::mutex> lock(mirrors_mu);
    std::vector<std::weak_ptr<Buffer>> kept;
    for (const std::weak_ptr<Buffer>& w : mirrors) {
      std::shared_ptr<Buffer> b = w.lock();
      if (!b) continue;
      kept.push_back(w);
      auto* dc = dynamic_cast<DeviceCopy*>(b->device.get());
      // Only mirrors; and one a running plan holds too (RunContext::keep) has
      // more owners than the buffer.
      if (!dc || !b->host_valid || b->device.use_count() > 1) continue;
      candidates.push_back({dc->last_use, dc->capacity(), std::move(b)});
    }
    mirrors = std::move(kept);
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& x, const Candidate& y) { return x.last_use < y.last_use; });
  size_t freed = 0;
  for (Candidate& c : candidates) {
    if (freed >= want) break;
    c.buf->device.reset();  // the copy's block goes back to the pool
    freed += c.bytes;
    std::lock_guard<std::mutex> lock(stats_mu);
    ++stats.evictions;
    stats.eviction_bytes += c.bytes;
  }
  return freed;
}

TransferStats transfer_stats() {
  std::lock_guard<std::mutex> lock(stats_mu);
  return stats;
}

DeviceCopy::DeviceCopy(const Device& device, size_t bytes)
    : device_(device), block_(DevicePool::get(device).allocate(bytes)) {}

DeviceCopy::~DeviceCopy() { DevicePool::get(device_).release(block_); }

void DeviceCopy::download(std::byte* host, size_t bytes) {
  if (bytes == 0) return;
  try {
    device_.make_current();
    CU_CALL(cuMemcpyDtoHAsync, host, block_.ptr, bytes, device_.stream());
    CU_CALL(cuStreamSynchronize, device_.stream());
  } catch (const Error& e) {
    // The device lost it (a sticky fault): compute it on the host instead.
    if (e.kind != ErrorKind::Gpu || !recovery) throw;
    recovery->recompute(host, bytes);
    return;
  }
  std::lock_guard<std::mutex> lock(stats_mu);
  ++stats.downloads;
  stats.download_bytes += bytes;
}

DeviceCopy* current_device_copy(const Buffer& buf) { return dynamic_cast<DeviceCopy*>(buf.device.get()); }

namespace {

DeviceCopy& ensure_copy(const Device& device, Buffer& buf) {
  DeviceCopy* dc = current_device_copy(buf);
  if (dc && dc->capacity() >= buf.bytes()) {
    touch(*dc);
    return *dc;
  }
  auto fresh = std::make_shared<DeviceCopy>(device, buf.bytes());
  dc = fresh.get();
  buf.device = std::move(fresh);
  touch(*dc);
  return *dc;
}

}  // namespace

CUdeviceptr resident_for_read(const Device& device, Buffer& buf) {
  if (DeviceCopy* dc = current_device_copy(buf)) {
    touch(*dc);
    return dc->ptr();
  }
  // Only a host copy (or a delayed producer: run it first, before its side
  // is replaced by the device copy): upload it. Pageable memory is staged by
  // the driver before the call returns, so the host buffer may change right
  // after.
  const std::byte* src = buf.host();
  DeviceCopy& dc = ensure_copy(device, buf);
  if (buf.bytes() > 0) {
    device.make_current();
    CU_CALL(cuMemcpyHtoDAsync, dc.ptr(), src, buf.bytes(), device.stream());
    std::lock_guard<std::mutex> lock(stats_mu);
    ++stats.uploads;
    stats.upload_bytes += buf.bytes();
  }
  remember_mirror(device, buf);
  return dc.ptr();
}

CUdeviceptr resident_for_write(const Device& device, Buffer& buf) { return ensure_copy(device, buf).ptr(); }

CUdeviceptr resident_for_update(const Device& device, Buffer& buf) { return resident_for_read(device, buf); }

void mark_written_on_device(Buffer& buf) { buf.mark_device_only(); }

}  // namespace thorn::gpu
