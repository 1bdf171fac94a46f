#include "writer/parallel_ranges.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

#include "util/io_bytes.h"
#include "util/ordered_batch_ring.h"

namespace tracecompact {
namespace {

struct RangeBatch {
  size_t begin = 0, end = 0;
  IoBytes output;  // its first output_size bytes: '[' and the rendered items
  size_t output_size = 0;
  std::exception_ptr error;

  bool empty() const { return begin == end; }
  void clear() {
    begin = end = output_size = 0;
    error = nullptr;
  }
};

class RangeWorker {
 public:
  explicit RangeWorker(const ItemRenderer& render) : render_(render) {}
  void process(RangeBatch& batch) {
    try {
      out_.reset();  // a fresh array per batch: the writer separates its items
      out_.start_array();
      for (size_t item = batch.begin; item < batch.end; ++item) render_(item, out_);
    } catch (...) {
      batch.error = std::current_exception();
    }
    out_.stream().take(batch.output, batch.output_size);
  }

 private:
  const ItemRenderer& render_;
  JsonOut out_;
};

}  // namespace

void render_ranges(unsigned workers, size_t count, size_t per_batch, const ItemRenderer& render,
                   JsonOut& out) {
  if (workers == 0 || count <= per_batch) {
    for (size_t item = 0; item < count; ++item) render(item, out);
    return;
  }
  constexpr size_t kBatchesPerWorker = 3;
  OrderedBatchRing<RangeBatch, RangeWorker> ring(
      workers, kBatchesPerWorker, [&render] { return std::make_unique<RangeWorker>(render); });
  auto append = [&](RangeBatch& batch) {
    if (batch.output_size > 1) {  // past the batch's own '['
      out.begin_raw_value();
      out.stream().adopt(batch.output, 1, batch.output_size);
    }
    if (batch.error) std::rethrow_exception(batch.error);
  };
  for (size_t begin = 0; begin < count; begin += per_batch) {
    ring.put(
        [&](RangeBatch& batch) {
          if (!batch.empty()) return false;
          batch.begin = begin;
          batch.end = std::min(count, begin + per_batch);
          return true;
        },
        append);
  }
  ring.drain(append);
}

}  // namespace tracecompact
