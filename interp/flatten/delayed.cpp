#include "interp/flatten/delayed.hpp"
#include "interp/flatten/elem_tree.hpp"

#include "interp/flatten/kernel_ir_builder.hpp"

#include <stdexcept>

namespace thorn::flatten {

int64_t Producer::count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool prim_leaves(const ElemShape& e, std::vector<Prim>& out) {
  switch (e.kind) {
    case ElemShape::Kind::Prim: out.push_back(e.prim); return true;
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record:
      for (const ElemShape& c : e.children) {
        if (c.kind != ElemShape::Kind::Prim) return false;
        out.push_back(c.prim);
      }
      return true;
    case ElemShape::Kind::Boxed: return false;
  }
  return false;
}

namespace {

// Shared by the leaf buffers of one delayed array.
struct Group {
  ProducerPtr producer;
  std::vector<std::weak_ptr<Buffer>> leaves;
  bool done = false;
  std::function<void(const std::vector<BufferPtr>&)> check;  // after materialising
};

class DelayedSide : public Buffer::DeviceSide {
 public:
  explicit DelayedSide(std::shared_ptr<Group> g) : group_(std::move(g)) {}

  // Materialises every leaf of the group at once; `host` is the requesting
  // buffer's memory.
  void download(std::byte* host, size_t) override {
    std::shared_ptr<Group> g = group_;  // keeps the group alive while leaves let go of it
    if (g->done) return;
    g->done = true;
    std::vector<BufferPtr> outs;
    std::vector<BufferPtr> live;
    const Producer& p = *g->producer;
    for (size_t k = 0; k < g->leaves.size(); ++k) {
      BufferPtr b = g->leaves[k].lock();
      if (b) {
        b->host_valid = true;  // host() must not come back here
        live.push_back(b);
      } else {
        b = std::make_shared<Buffer>(p.leaves[k], p.count(), Buffer::NoInit{});  // a leaf nobody holds
      }
      outs.push_back(b);
    }
    try {
      run_producer(p, outs);
    } catch (...) {
      // Leave the array delayed: a later access fails the same way instead
      // of reading garbage.
      g->done = false;
      for (const BufferPtr& b : live) b->host_valid = false;
      throw;
    }
    if (g->check) {
      auto check = std::move(g->check);
      g->check = nullptr;
      check(outs);
    }
    // The other leaves are plain host buffers now. The requesting buffer
    // keeps this side until its host() returns (it owns us).
    for (const BufferPtr& b : live)
      if (b->host() != host) b->device.reset();
  }

  const std::shared_ptr<Group>& group() const { return group_; }

 private:
  std::shared_ptr<Group> group_;
};

}  // namespace

Value make_delayed_array(ProducerPtr p) {
  auto g = std::make_shared<Group>();
  g->producer = p;
  auto side = std::make_shared<DelayedSide>(g);
  std::vector<ArrayPtr> leaf_arrays;
  for (Prim t : p->leaves) {
    auto b = std::make_shared<Buffer>(t, p->count(), Buffer::NoInit{});
    b->device = side;
    b->host_valid = false;
    g->leaves.push_back(b);
    leaf_arrays.push_back(make_prim_array(b, p->shape));
  }
  size_t pos = 0;
  return Value::make_array(nest_leaves(p->elem_shape, leaf_arrays, pos, p->shape));
}

ProducerPtr delayed_producer(const ArrayValue& a) {
  std::vector<const ArrayValue*> leaves;
  if (!flat_leaves(a, leaves) || leaves.empty()) return nullptr;
  const ArrayValue* leaf = leaves[0];
  if (leaf->buffer->host_valid || leaf->offset != 0) return nullptr;
  auto* side = dynamic_cast<DelayedSide*>(leaf->buffer->device.get());
  if (!side || side->group()->done) return nullptr;
  const Group& g = *side->group();
  // Every leaf must be this group's leaf, in order.
  if (leaves.size() != g.leaves.size()) return nullptr;
  // A whole array of prims may also be reshaped (`flatten`, `unflatten`):
  // the producer computes its elements by flat index either way.
  const Producer& p = *g.producer;
  bool reshaped = a.shape != p.shape;
  if (reshaped && (!a.buffer || a.elem.kind != ElemShape::Kind::Prim || p.elem_shape.kind != ElemShape::Kind::Prim ||
                   a.count() != p.count()))
    return nullptr;
  for (size_t k = 0; k < leaves.size(); ++k) {
    const ArrayValue& c = *leaves[k];
    if (c.offset != 0 || (!reshaped && c.shape != p.shape) || c.buffer != g.leaves[k].lock()) return nullptr;
  }
  return g.producer;
}

bool on_materialise(const ArrayValue& a, std::function<void(const std::vector<BufferPtr>&)> check) {
  if (!delayed_producer(a)) return false;
  std::vector<const ArrayValue*> leaves;
  flat_leaves(a, leaves);
  auto* side = dynamic_cast<DelayedSide*>(leaves.at(0)->buffer->device.get());
  side->group()->check = std::move(check);
  return true;
}

void materialise_leaves(const ArrayValue& a) {
  if (a.buffer) a.buffer->materialise_delayed();
  for (const ArrayPtr& c : a.components)
    if (c) materialise_leaves(*c);
}

namespace {
PlanRunner& plan_runner() {
  static PlanRunner runner;
  return runner;
}
}  // namespace

void set_plan_runner(PlanRunner run) { plan_runner() = std::move(run); }

plan::Step materialise_step(const Producer& p) {
  plan::Step st;
  st.kind = plan::StepKind::SegMap;
  st.loc = p.loc;
  st.segments = 1;
  st.segment_size = p.count();
  st.fused = p.what;
  kir::Builder b(st.element);
  st.element.name = "materialise";
  b.param(Prim::I64);
  kir::Reg j = b.param(Prim::I64);
  std::vector<int> arrays;
  for (size_t k = 0; k < p.reads.size(); ++k) {
    arrays.push_back(b.free_array(p.elem.free_arrays[k].elem, p.elem.free_arrays[k].name));
    st.reads.push_back(int(k));
  }
  b.ret(b.inline_call(p.elem, {j}, arrays));
  for (size_t k = 0; k < p.leaves.size(); ++k) st.writes.push_back(int(p.reads.size() + k));
  return st;
}

plan::Plan producer_plan(const Producer& p, const std::vector<BufferPtr>& outs, std::vector<BufferPtr>& bufs) {
  plan::Plan pl;
  pl.source = p.what;
  pl.loc = p.loc;
  bufs.clear();
  for (size_t k = 0; k < p.reads.size(); ++k) {
    pl.buffers.push_back({p.reads[k]->elem(), p.reads[k]->count(), p.elem.free_arrays[k].name, true});
    bufs.push_back(p.reads[k]);
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    pl.buffers.push_back({outs[k]->elem(), outs[k]->count(), "out", true});
    bufs.push_back(outs[k]);
  }
  pl.steps.push_back(materialise_step(p));
  return pl;
}

void run_producer(const Producer& p, const std::vector<BufferPtr>& outs) {
  if (p.count() == 0) return;
  if (!plan_runner()) throw std::logic_error("delayed arrays: no plan runner installed (exec's host backend installs it)");
  std::vector<BufferPtr> bufs;
  plan::Plan pl = producer_plan(p, outs, bufs);
  plan_runner()(pl, bufs);
}

}  // namespace thorn::flatten
