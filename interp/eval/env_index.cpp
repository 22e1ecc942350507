#include "interp/eval/env_index.hpp"

#include "interp/eval/env.hpp"

namespace thorn::eval {

uint64_t name_hash(std::string_view name) {
  // FNV-1a, then a final mix: names are short, and the low bits pick the slot.
  uint64_t h = 1469598103934665603ull;
  for (char c : name) {
    h ^= uint8_t(c);
    h *= 1099511628211ull;
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return h;
}

Binding* EnvIndex::find(std::string_view name, uint64_t hash) const {
  if (slots_.empty()) return nullptr;
  size_t mask = slots_.size() - 1;
  for (size_t k = size_t(hash) & mask;; k = (k + 1) & mask) {
    const Slot& s = slots_[k];
    if (!s.name) return nullptr;
    if (s.hash == hash && *s.name == name) return s.binding;
  }
}

void EnvIndex::insert(const std::string* name, uint64_t hash, Binding* b) {
  if (2 * (count_ + 1) > slots_.size()) grow();
  size_t mask = slots_.size() - 1;
  for (size_t k = size_t(hash) & mask;; k = (k + 1) & mask) {
    Slot& s = slots_[k];
    if (!s.name) {
      s = Slot{hash, name, b};
      ++count_;
      return;
    }
    if (s.hash == hash && *s.name == *name) {
      s.name = name;
      s.binding = b;
      return;
    }
  }
}

void EnvIndex::grow() { rehash(slots_.empty() ? 32 : 2 * slots_.size()); }

void EnvIndex::reserve(size_t n) {
  size_t size = slots_.empty() ? 32 : slots_.size();
  while (2 * n > size) size *= 2;
  if (size != slots_.size()) rehash(size);
}

void EnvIndex::rehash(size_t size) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(size, Slot{});
  count_ = 0;
  for (const Slot& s : old)
    if (s.name) insert(s.name, s.hash, s.binding);
}

void index_new_frame(Env& e) {
  for (const auto& [name, b] : e.locals) e.names_bloom |= bloom_bit(name_hash(name));
  const Env* p = e.parent.get();
  if (p && !p->ns && !p->index) {
    e.run = p->run + 1;
    e.run_bloom = p->run_bloom | e.names_bloom;
    e.run_base = p->run_base;
  } else {
    e.run = 1;
    e.run_bloom = e.names_bloom;
    e.run_base = p;
  }
  if (e.run <= kIndexRun) return;
  // The frames since the previous checkpoint, newest first, and what lies
  // below them: that checkpoint (whose table is the starting point), or the
  // Scope frame / root where the chain of Local frames begins.
  std::vector<const Env*> run;
  const Env* f = &e;
  for (; f && !f->ns && !f->index; f = f->parent.get()) run.push_back(f);
  auto idx = std::make_shared<EnvIndex>();
  if (f && f->index) {
    *idx = *f->index;
  } else {
    idx->below = f;
  }
  size_t added = 0;
  for (const Env* r : run) added += r->locals.size();
  idx->reserve(idx->size() + added);
  for (auto it = run.rbegin(); it != run.rend(); ++it)
    for (auto& [name, b] : (*it)->locals) idx->insert(&name, name_hash(name), &b);
  e.index = std::move(idx);
  e.run = 0;
}

}  // namespace thorn::eval
