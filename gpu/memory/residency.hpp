#pragma once
// Residency: where a Buffer's current contents live (interp/core/value.hpp).
//
// A Buffer produced by a GPU kernel gets a DeviceCopy and host_valid=false:
// it stays on the device, and a later GPU step reads it there. Only when the
// host needs it does Buffer::host() call DeviceCopy::download, once (the host
// copy is then valid too). A host buffer read by a kernel is uploaded once and
// keeps its DeviceCopy as a mirror for later steps.
//
// The contract for host code that writes a buffer in place (in-place updates,
// host executors reusing a buffer): call Buffer::host_written() afterwards,
// which drops a now stale device copy. Buffers written only at creation need
// nothing.
//
// When device memory runs out, mirrors (device copies of buffers whose host
// copy is current too) that no running plan holds are dropped, least
// recently used first (the pool's pressure hook): the next plan that needs
// one uploads it again. Device-only contents are never dropped.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpu/driver/cuda_types.hpp"
#include "gpu/memory/pool.hpp"
#include "interp/core/value.hpp"

namespace thorn::gpu {

class Device;

// How to compute a device-only buffer's contents on the host when the
// device cannot give them back (a sticky fault such as an illegal address
// loses the whole context). Set by the plan executor that made the buffer
// (interp/exec/host_gpu.cpp: the plan and its inputs' own recoveries).
struct Recovery {
  virtual ~Recovery() = default;
  // `host` holds what the buffer's host copy held when it was last current
  // (the starting point of an in-place update).
  virtual void recompute(std::byte* host, size_t bytes) const = 0;
};

class DeviceCopy final : public Buffer::DeviceSide {
 public:
  DeviceCopy(const Device& device, size_t bytes);
  ~DeviceCopy() override;
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;

  void download(std::byte* host, size_t bytes) override;  // device -> host, synchronous
  bool in_device_memory() const override { return true; }
  CUdeviceptr ptr() const { return block_.ptr; }
  size_t capacity() const { return block_.bytes; }
  std::shared_ptr<const Recovery> recovery;  // null: lost with the device
  uint64_t last_use = 0;  // a tick of the residency clock (least recently used out)

 private:
  const Device& device_;
  DevicePool::Block block_;
};

struct TransferStats {
  uint64_t uploads = 0, upload_bytes = 0;
  uint64_t downloads = 0, download_bytes = 0;
  uint64_t evictions = 0, eviction_bytes = 0;  // mirrors dropped under memory pressure
};
TransferStats transfer_stats();

// The buffer's device copy if it has a current one, else null.
DeviceCopy* current_device_copy(const Buffer& buf);
// Device address of the buffer's contents for kernels to read: uploads the
// host copy the first time (asynchronously, in stream order) and keeps it.
CUdeviceptr resident_for_read(const Device& device, Buffer& buf);
// Device memory a kernel will overwrite completely; no upload.
CUdeviceptr resident_for_write(const Device& device, Buffer& buf);
// Device memory holding the current contents, to be updated in place (scatter).
CUdeviceptr resident_for_update(const Device& device, Buffer& buf);
// After a kernel wrote the buffer: the device copy is now the only current one.
void mark_written_on_device(Buffer& buf);
// Drops mirrors that no running plan holds, least recently used first, until
// `want` bytes are released or none is left; returns the bytes released.
// Installed as the pool's pressure hook on first use.
size_t evict_mirrors(size_t want);

}  // namespace thorn::gpu
