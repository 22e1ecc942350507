#include "gpu/memory/residency.hpp"

#include <mutex>

#include "gpu/driver/cuda.hpp"
#include "gpu/driver/device.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu {

namespace {
std::mutex stats_mu;
TransferStats stats;
}  // namespace

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
  if (dc && dc->capacity() >= buf.bytes()) return *dc;
  auto fresh = std::make_shared<DeviceCopy>(device, buf.bytes());
  dc = fresh.get();
  buf.device = std::move(fresh);
  return *dc;
}

}  // namespace

CUdeviceptr resident_for_read(const Device& device, Buffer& buf) {
  if (DeviceCopy* dc = current_device_copy(buf)) return dc->ptr();
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
  return dc.ptr();
}

CUdeviceptr resident_for_write(const Device& device, Buffer& buf) { return ensure_copy(device, buf).ptr(); }

CUdeviceptr resident_for_update(const Device& device, Buffer& buf) { return resident_for_read(device, buf); }

void mark_written_on_device(Buffer& buf) { buf.mark_device_only(); }

}  // namespace thorn::gpu
