// tracecompact_gen: deterministic generator of realistic Kineto (Chrome JSON) traces captured
// under CUDA-graph replay, used to benchmark tracecompact.
//
// The output is streamed through a fixed-size buffer, so memory does not grow with the requested
// size. All times are kept as integer nanoseconds of one global clock and printed as
// microseconds with three decimals; printing the same integer always yields the same text, which
// is how an ac2g flow end lands exactly on its kernel's start.

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cxxopts.hpp>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

[[noreturn]] void Fail(const std::string& what) {
  throw std::runtime_error(what);
}

// Bump whenever the bytes produced for given options change: run_bench.sh keys its input cache
// on it.
constexpr int kFormatVersion = 1;

// ---------------------------------------------------------------------------------------------
// Random numbers. std:: distributions differ between standard libraries, so the engine
// (xoshiro256**, seeded through splitmix64) and every way of drawing from it are our own:
// the same seed gives the same bytes everywhere.

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& word : s_) word = SplitMix64(seed);
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n) by multiply-shift; the bias (< n / 2^64) does not matter here.
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }
  int64_t Range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo + 1)));
  }
  bool Percent(int p) { return Below(100) < static_cast<uint64_t>(p); }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> s_{};
};

// ---------------------------------------------------------------------------------------------
// Output sinks: a plain file, or gzip through ISA-L (level 1, gzip header and trailer).

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void Write(const char* data, size_t size) = 0;
  virtual void Finish() = 0;
};

class FileSink final : public Sink {
 public:
  explicit FileSink(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) Fail("cannot create " + path_ + ": " + std::strerror(errno));
  }
  ~FileSink() override {
    if (fd_ >= 0) ::close(fd_);
  }

  void Write(const char* data, size_t size) override {
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        Fail("cannot write " + path_ + ": " + std::strerror(errno));
      }
      data += n;
      size -= static_cast<size_t>(n);
    }
  }

  void Finish() override {
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) Fail("cannot close " + path_ + ": " + std::strerror(errno));
  }

 private:
  std::string path_;
  int fd_ = -1;
};

class GzipSink final : public Sink {
 public:
  explicit GzipSink(std::string path)
      : file_(std::move(path)), level_buf_(ISAL_DEF_LVL1_DEFAULT), out_(1 << 20) {
    isal_deflate_init(&zs_);
    zs_.level = 1;
    zs_.level_buf = level_buf_.data();
    zs_.level_buf_size = static_cast<uint32_t>(level_buf_.size());
    zs_.gzip_flag = IGZIP_GZIP;
  }

  // JsonOut hands over at most one buffer (~1 MiB) at a time, well within avail_in's 32 bits.
  void Write(const char* data, size_t size) override { Deflate(data, size, false); }
  void Finish() override {
    Deflate(nullptr, 0, true);
    file_.Finish();
  }

 private:
  void Deflate(const char* data, size_t size, bool last) {
    zs_.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data));
    zs_.avail_in = static_cast<uint32_t>(size);
    zs_.end_of_stream = last ? 1 : 0;
    bool more = true;
    while (more) {
      zs_.next_out = out_.data();
      zs_.avail_out = static_cast<uint32_t>(out_.size());
      if (isal_deflate(&zs_) != COMP_OK) Fail("isal_deflate failed");
      const size_t produced = out_.size() - zs_.avail_out;
      file_.Write(reinterpret_cast<const char*>(out_.data()), produced);
      // A full output buffer may hide pending output; the final call must reach ZSTATE_END.
      more = zs_.avail_in > 0 || zs_.avail_out == 0 ||
             (last && zs_.internal_state.state != ZSTATE_END);
    }
  }

  FileSink file_;
  std::vector<uint8_t> level_buf_;
  std::vector<uint8_t> out_;
  isal_zstream zs_{};
};

std::unique_ptr<Sink> OpenSink(const std::string& path, bool gzip) {
  if (gzip) return std::make_unique<GzipSink>(path);
  return std::make_unique<FileSink>(path);
}

// ---------------------------------------------------------------------------------------------
// Buffered JSON text writer. No fprintf/iostream: integers go through std::to_chars and times
// are integer nanoseconds, so no floating point is ever formatted.

class JsonOut {
 public:
  explicit JsonOut(std::unique_ptr<Sink> sink) : sink_(std::move(sink)), buf_(kCapacity) {
    pos_ = buf_.data();
  }

  JsonOut& Raw(std::string_view text) {
    if (text.size() > kCapacity / 2) {
      Flush();
      sink_->Write(text.data(), text.size());
      flushed_ += text.size();
      return *this;
    }
    Reserve(text.size());
    std::memcpy(pos_, text.data(), text.size());
    pos_ += text.size();
    return *this;
  }

  // Quoted string; escapes only what JSON requires.
  JsonOut& Str(std::string_view text) {
    Raw("\"");
    size_t plain = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      Raw(text.substr(plain, i - plain));
      EscapeChar(c);
      plain = i + 1;
    }
    Raw(text.substr(plain));
    return Raw("\"");
  }

  JsonOut& Int(int64_t value) {
    Reserve(24);
    pos_ = std::to_chars(pos_, pos_ + 24, value).ptr;
    return *this;
  }

  // value / 10^decimals printed with exactly `decimals` digits after the point; value >= 0.
  JsonOut& Fixed(int64_t value, int decimals) {
    int64_t scale = 1;
    for (int i = 0; i < decimals; ++i) scale *= 10;
    Int(value / scale);
    Reserve(24);
    *pos_++ = '.';
    int64_t frac = value % scale;
    for (int i = decimals - 1; i >= 0; --i) {
      pos_[i] = static_cast<char>('0' + frac % 10);
      frac /= 10;
    }
    pos_ += decimals;
    return *this;
  }

  // Nanoseconds as Kineto microseconds: three decimals, or an integer when whole.
  JsonOut& Micros(int64_t ns) {
    if (ns < 0) Fail("internal error: negative time " + std::to_string(ns));
    if (ns % 1000 == 0) return Int(ns / 1000);
    return Fixed(ns, 3);
  }

  // Separator before each element of traceEvents.
  JsonOut& NextEvent() {
    Raw(events_ == 0 ? "\n  " : ",\n  ");
    ++events_;
    return *this;
  }

  uint64_t bytes() const { return flushed_ + static_cast<uint64_t>(pos_ - buf_.data()); }
  uint64_t events() const { return events_; }

  void Finish() {
    Flush();
    sink_->Finish();
  }

 private:
  static constexpr size_t kCapacity = 1 << 20;

  void Reserve(size_t n) {
    if (static_cast<size_t>(buf_.data() + kCapacity - pos_) < n) Flush();
  }

  void Flush() {
    const size_t size = static_cast<size_t>(pos_ - buf_.data());
    if (size == 0) return;
    sink_->Write(buf_.data(), size);
    flushed_ += size;
    pos_ = buf_.data();
  }

  void EscapeChar(unsigned char c) {
    static constexpr char kHex[] = "0123456789abcdef";
    switch (c) {
      case '"':
        Raw("\\\"");
        return;
      case '\\':
        Raw("\\\\");
        return;
      case '\n':
        Raw("\\n");
        return;
      case '\t':
        Raw("\\t");
        return;
      default: {
        const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        Raw(std::string_view(esc, sizeof esc));
      }
    }
  }

  std::unique_ptr<Sink> sink_;
  std::vector<char> buf_;
  char* pos_ = nullptr;
  uint64_t flushed_ = 0;
  uint64_t events_ = 0;
};

// ---------------------------------------------------------------------------------------------
// What the GPU runs. Names, launch shapes and durations follow real H100 training traces.

enum class SliceCat { kKernel, kMemcpy, kMemset };

struct CollectiveSpec {
  std::string_view collective;  // "Collective name" arg
  int64_t nelems;
  std::string_view dtype;
  std::string_view pg_name;
  std::string_view pg_desc;
};

struct KernelSpec {
  std::string_view name;
  SliceCat cat;
  int64_t min_ns;
  int64_t max_ns;
  int registers;
  int shared_mem;
  std::array<int, 3> grid;
  std::array<int, 3> block;
  const CollectiveSpec* collective;  // NCCL kernels only
};

constexpr CollectiveSpec kAllGather{"allgather", 1048576, "BFloat16", "1", "mesh_dp_shard"};
constexpr CollectiveSpec kReduceScatter{"reduce_scatter", 4194304, "BFloat16", "1",
                                        "mesh_dp_shard"};
constexpr CollectiveSpec kAllReduce{"allreduce", 1, "Float", "0", "default_pg"};
constexpr CollectiveSpec kSendRecv{"send", 8388608, "BFloat16", "2", "mesh_pp"};

constexpr std::array<int, 3> Dim(int x, int y, int z) {
  return {x, y, z};
}

constexpr KernelSpec Kernel(std::string_view name, int64_t min_ns, int64_t max_ns, int registers,
                            int shared_mem, std::array<int, 3> grid, std::array<int, 3> block,
                            const CollectiveSpec* collective = nullptr) {
  return {name, SliceCat::kKernel, min_ns, max_ns, registers, shared_mem, grid, block, collective};
}

constexpr KernelSpec Copy(std::string_view name, SliceCat cat, int64_t min_ns, int64_t max_ns) {
  return {name, cat, min_ns, max_ns, 0, 0, Dim(0, 0, 0), Dim(0, 0, 0), nullptr};
}

constexpr KernelSpec kRmsNorm = Kernel("triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0", 3000,
                                       6500, 32, 0, Dim(8192, 1, 1), Dim(256, 1, 1));
constexpr KernelSpec kGemmQkv = Kernel(
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    15000, 42000, 168, 213248, Dim(132, 1, 1), Dim(384, 1, 1));
constexpr KernelSpec kNvjet = Kernel("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT", 12000, 38000, 168,
                                     200704, Dim(132, 1, 1), Dim(384, 1, 1));
constexpr KernelSpec kFlashFwd = Kernel(
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, "
    "true, false, false, true, true, false, false>(flash::Flash_fwd_params)",
    20000, 40000, 255, 49152, Dim(64, 32, 1), Dim(128, 1, 1));
constexpr KernelSpec kAdd = Kernel(
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, "
    "3ul>)",
    2000, 7000, 24, 0, Dim(16384, 1, 1), Dim(128, 1, 1));
constexpr KernelSpec kSiluMul =
    Kernel("triton_poi_fused_mul_silu_1", 3000, 8000, 26, 0, Dim(28672, 1, 1), Dim(512, 1, 1));
constexpr KernelSpec kFill = Kernel(
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>, "
    "std::array<char*, 1ul> >(int, at::native::FillFunctor<c10::BFloat16>, std::array<char*, 1ul>)",
    1000, 3000, 16, 0, Dim(4096, 1, 1), Dim(128, 1, 1));
constexpr KernelSpec kFlashBwd = Kernel(
    "void flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, "
    "128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 8, "
    "cutlass::bfloat16_t> >, true, false, false, false, false, true, "
    "false>(flash::Flash_bwd_params)",
    40000, 80000, 255, 114688, Dim(16, 32, 16), Dim(256, 1, 1));
constexpr KernelSpec kGemmBwd = Kernel(
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x64_warpgroupsize2x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    15000, 45000, 168, 213248, Dim(132, 1, 1), Dim(384, 1, 1));
constexpr KernelSpec kCutlassWgrad = Kernel(
    "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>("
    "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
    15000, 40000, 128, 65536, Dim(256, 4, 1), Dim(128, 1, 1));
constexpr KernelSpec kRedSum = Kernel("triton_red_fused__to_copy_add_mul_sum_2", 3000, 9000, 40, 0,
                                      Dim(4096, 1, 1), Dim(64, 1, 1));
constexpr KernelSpec kAdamW = Kernel(
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<"
    "float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, "
    "bool, float*, float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, "
    "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, "
    "false>, float*, double, double, double, double, double, bool, float*, float*)",
    15000, 45000, 64, 0, Dim(320, 1, 1), Dim(512, 1, 1));
constexpr KernelSpec kNormScale = Kernel(
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<"
    "float, 1, 1, 0>, std::multiplies<float>, float>(at::native::(anonymous "
    "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<"
    "float, 1, 1, 0>, std::multiplies<float>, float)",
    4000, 12000, 32, 0, Dim(640, 1, 1), Dim(512, 1, 1));
constexpr KernelSpec kNcclAllGather =
    Kernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 25000, 50000, 96, 0,
           Dim(16, 1, 1), Dim(512, 1, 1), &kAllGather);
constexpr KernelSpec kNcclReduceScatter =
    Kernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 30000,
           90000, 96, 0, Dim(16, 1, 1), Dim(512, 1, 1), &kReduceScatter);
constexpr KernelSpec kNcclAllReduce =
    Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 8000, 20000,
           96, 0, Dim(16, 1, 1), Dim(512, 1, 1), &kAllReduce);
constexpr KernelSpec kNcclSendRecv =
    Kernel("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 6000, 14000, 96, 0,
           Dim(1, 1, 1), Dim(640, 1, 1), &kSendRecv);
constexpr KernelSpec kSymmBarrier = Kernel(
    "void c10d::symmetric_memory::barrier_kernel(unsigned int**, unsigned long, int, int, int)",
    2000, 6000, 32, 0, Dim(1, 1, 1), Dim(8, 1, 1));
constexpr KernelSpec kMemcpyHtoD =
    Copy("Memcpy HtoD (Pinned -> Device)", SliceCat::kMemcpy, 4000, 12000);
constexpr KernelSpec kMemcpyDtoD =
    Copy("Memcpy DtoD (Device -> Device)", SliceCat::kMemcpy, 2000, 6000);
constexpr KernelSpec kMemset = Copy("Memset (Device)", SliceCat::kMemset, 1000, 2500);

// One transformer layer's kernels, in launch order. The first half belongs to attention.
constexpr std::array<const KernelSpec*, 10> kForwardLayer = {
    &kRmsNorm, &kGemmQkv, &kFlashFwd, &kNvjet, &kAdd,
    &kRmsNorm, &kGemmQkv, &kSiluMul,  &kNvjet, &kAdd};
constexpr std::array<const KernelSpec*, 14> kBackwardLayer = {
    &kFill,    &kGemmBwd,  &kCutlassWgrad, &kSiluMul,    &kGemmBwd, &kCutlassWgrad, &kRedSum,
    &kGemmBwd, &kFlashBwd, &kCutlassWgrad, &kMemcpyDtoD, &kRmsNorm, &kRedSum,       &kAdd};
constexpr std::array<const KernelSpec*, 1> kSendRecvOnly = {&kNcclSendRecv};
constexpr std::array<const KernelSpec*, 1> kAllGatherOnly = {&kNcclAllGather};
constexpr std::array<const KernelSpec*, 1> kReduceScatterOnly = {&kNcclReduceScatter};

using KernelPattern = std::pair<const KernelSpec* const*, size_t>;
template <size_t N>
constexpr KernelPattern Pattern(const std::array<const KernelSpec*, N>& kernels) {
  return {kernels.data(), N};
}

// CPU operators with Kineto's record_shapes args, pre-rendered (after "Fwd thread id").
struct CpuOpSpec {
  std::string_view name;
  std::string_view args;
};

constexpr std::array<CpuOpSpec, 6> kCpuOps = {{
    {"aten::copy_",
     R"("Concrete Inputs": ["", "", "False"], "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"], "Input Strides": [[4096, 1], [4096, 1], []], "Input Dims": [[8192, 4096], [8192, 4096], []])"},
    {"aten::mm",
     R"("Concrete Inputs": ["", ""], "Input type": ["c10::BFloat16", "c10::BFloat16"], "Input Strides": [[4096, 1], [1, 4096]], "Input Dims": [[8192, 4096], [4096, 14336]])"},
    {"aten::add_",
     R"("Concrete Inputs": ["", "", "1"], "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"], "Input Strides": [[4096, 1], [4096, 1], []], "Input Dims": [[8192, 4096], [8192, 4096], []])"},
    {"aten::empty_strided",
     R"("Concrete Inputs": ["[8192, 4096]", "[4096, 1]", "15", "0", "cuda:0", "False"], "Input type": ["ScalarList", "ScalarList", "Scalar", "", "Device", "Scalar"], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []])"},
    {"c10d::reduce_scatter_tensor_coalesced_",
     R"("Concrete Inputs": ["", "", "\"avg\"", "-1"], "Input type": ["GenericList", "GenericList", "c10::intrusive_ptr<c10d::ReduceOp>", "Int"], "Input Strides": [[], [], [], []], "Input Dims": [[], [], [], []])"},
    {"aten::_foreach_mul_",
     R"("Concrete Inputs": ["", "0.5"], "Input type": ["TensorList", "Scalar"], "Input Strides": [[], []], "Input Dims": [[], []])"},
}};

// ---------------------------------------------------------------------------------------------
// Layout of one trace (one pipeline stage) and the global clock.

// Global start, in ns: prints as 1712195495519.047 microseconds, like real Kineto timestamps.
constexpr int64_t kTraceStartNs = 1712195495519047;
constexpr int64_t kBaseTimeNs = 1712195495000000000;

constexpr int kGpuPid = 0;
constexpr int kComputeStream = 7;  // default stream: eager kernels, copies
constexpr int kSideStreamA = 13;   // overlapping eager compute
constexpr int kSideStreamB = 17;
constexpr int kBarrierStream = 19;
constexpr int kFirstReplayStream = 20;  // CUDA-graph replay streams: 20..700
constexpr int kLastReplayStream = 700;

constexpr int kCbidLaunchKernel = 211;
constexpr int kCbidMemcpyAsync = 41;
constexpr int kCbidMemsetAsync = 51;
constexpr int kCbidGraphLaunch = 311;
constexpr int kCbidStreamSync = 131;
constexpr int kCbidStreamWaitEvent = 147;
constexpr int kCbidDeviceSync = 165;

struct RankLayout {
  int stage = 0;
  int num_stages = 4;
  int global_rank = 0;
  int world_size = 16;
  int64_t base_time_ns = kBaseTimeNs;
  int64_t clock_shift_ns = 0;  // local ts = global time - shift (= base - smallest base)
  int cpu_pid = 4000;
  std::string trace_name;
};

// Global rank of a pipeline stage: 4 data-parallel ranks per stage, as in a 4xK mesh.
int GlobalRankOfStage(int stage) {
  return stage * 4;
}

// Timing of one training step, identical on every stage so cross-stage PP pairs line up.
struct StepTiming {
  static constexpr int64_t kPrologueNs = 200000;
  static constexpr int64_t kForwardSlotNs = 1600000;
  static constexpr int64_t kBackwardSlotNs = 3000000;
  static constexpr int64_t kOptimizerNs = 1500000;
  static constexpr int64_t kGapNs = 50000;

  int microbatches;
  int stages;

  int Slots() const { return microbatches + stages - 1; }
  int64_t ForwardSlot(int64_t step_start, int slot) const {
    return step_start + kPrologueNs + slot * kForwardSlotNs;
  }
  int64_t BackwardSlot(int64_t step_start, int slot) const {
    return ForwardSlot(step_start, Slots()) + slot * kBackwardSlotNs;
  }
  int64_t OptimizerStart(int64_t step_start) const { return BackwardSlot(step_start, Slots()); }
  int64_t Length() const {
    return kPrologueNs + Slots() * (kForwardSlotNs + kBackwardSlotNs) + kOptimizerNs;
  }
};

std::string PpLabel(int stage, std::string_view op, int microbatch) {
  std::string label = "PP:" + std::to_string(stage);
  label += op;
  if (microbatch >= 0) label += std::to_string(microbatch);
  return label;
}

// One CUDA-graph replay: a cudaGraphLaunch whose kernels run on `branches` replay streams.
struct GraphRegion {
  std::string label;  // region name: annotation + args.name of its kernels ("" = unnamed)
  KernelPattern pattern;
  int kernels = 1;
  int branches = 1;
  int64_t start_ns = 0;      // earliest kernel start
  int fixed_stream = -1;     // use this stream instead of drawing from the replay pool
  int labeled_percent = 80;  // chance that a layer's kernels carry args.name
  bool backward = false;     // launched from the autograd thread
};

// How long a named shape keeps going: a number of repetitions, or until the file holds
// `target_bytes` of JSON.
struct Budget {
  int64_t count = -1;
  uint64_t target_bytes = 0;
  bool More(int64_t done, uint64_t bytes) const {
    return count >= 0 ? done < count : bytes < target_bytes;
  }
};

// Which name a layer's kernels carry in args.name.
enum class LabelMode { kNone, kRegion, kModule };

// ---------------------------------------------------------------------------------------------
// Writes one rank's trace: the document frame, event emitters and the training schedule.

class TraceWriter {
 public:
  TraceWriter(RankLayout layout, uint64_t seed, std::unique_ptr<Sink> sink)
      : layout_(std::move(layout)), rng_(seed), out_(std::move(sink)) {}

  uint64_t bytes() const { return out_.bytes(); }
  uint64_t events() const { return out_.events(); }

  void Begin() {
    WriteHeader();
    WriteProcessMetadata();
  }

  void End(int64_t last_time_ns) {
    out_.NextEvent().Raw(R"({"name": "Record Window End", "ph": "i", "s": "g", "pid": "", )");
    out_.Raw(R"("tid": "", "ts": )").Micros(Local(last_time_ns)).Raw("}");
    out_.Raw("\n  ],\n  \"traceName\": ").Str(layout_.trace_name);
    out_.Raw(",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ");
    out_.Int(layout_.base_time_ns).Raw("\n}\n");
    out_.Finish();
  }

  // One ProfilerStep of GPipe-style pipeline training on this stage: all forwards, then all
  // backwards, then the optimizer.
  void EmitTrainingStep(int step_number, int64_t step_start, const StepTiming& timing) {
    EmitStepPrologue(step_start);
    for (int mb = 0; mb < timing.microbatches; ++mb) {
      EmitForwardSlot(mb, timing.ForwardSlot(step_start, mb + layout_.stage));
    }
    for (int mb = 0; mb < timing.microbatches; ++mb) {
      const int slot = mb + (layout_.num_stages - 1 - layout_.stage);
      EmitBackwardSlot(mb, timing.BackwardSlot(step_start, slot));
    }
    EmitOptimizer(timing.OptimizerStart(step_start));
    EmitProfilerStep(step_number, step_start, step_start + timing.Length());
  }

  // Shape identical_annotations: identical, overlapping gpu_user_annotation events (same
  // name, args and pid) over a few streams that also carry kernels. Returns the end time.
  int64_t EmitIdenticalAnnotations(const Budget& budget, int64_t start) {
    constexpr int kStreams = 4;
    constexpr int64_t kStrideNs = 2000;        // between annotations on one stream
    constexpr int64_t kDurationNs = 10000;     // so each overlaps the next four
    constexpr int kAnnotationsPerKernel = 16;  // a kernel (<= 8 us) every 32 us per stream
    int64_t i = 0;
    for (; budget.More(i, bytes()); ++i) {
      const int stream = kFirstReplayStream + static_cast<int>(i % kStreams);
      const int64_t row = i / kStreams;
      const int64_t ts = start + row * kStrideNs + (i % kStreams) * 137;
      if (row % kAnnotationsPerKernel == 0) {
        EmitEagerKernel(kSiluMul, stream, ts + 400, false, "layers.0.attention");
      }
      EmitGpuAnnotation("nn.Module: TransformerBlock_0", 7, stream, ts, kDurationNs);
    }
    const int64_t end = start + (i / kStreams + 1) * kStrideNs + kDurationNs;
    EmitProfilerStep(1, start - 1000, end);
    return end;
  }

  // Shape many_streams: distinct streams, each a short graph replay of three kernels; replays
  // start 7 us apart so a handful overlap at any time. Returns the end time.
  int64_t EmitManyStreams(const Budget& budget, int64_t start) {
    int64_t end = start;
    for (int64_t i = 0; budget.More(i, bytes()); ++i) {
      GraphRegion region;
      region.label = "layers." + std::to_string(i % 32) + ".attention";
      region.pattern = Pattern(kForwardLayer);
      region.kernels = 3;
      region.start_ns = start + i * 7000;
      region.fixed_stream = kFirstReplayStream + static_cast<int>(i);
      region.labeled_percent = 50;
      end = std::max(end, EmitGraphRegion(region));
    }
    EmitProfilerStep(1, start - 1000, end + 1000);
    return end + 1000;
  }

  // Shape repeated_pp_key: repetitions of the same microbatch key, each an F0 block followed by
  // its SEND_F0, at distinct times. Returns the end time.
  int64_t EmitRepeatedPpKey(const Budget& budget, int64_t start) {
    constexpr int64_t kSlotNs = 500000;
    int64_t end = start;
    for (int64_t i = 0; budget.More(i, bytes()); ++i) {
      const int64_t forward_end = EmitForwardRegion(0, 8, 1, start + i * kSlotNs);
      end = EmitSendRecv(PpLabel(layout_.stage, "SEND_F", 0), forward_end + 2000, false);
    }
    EmitProfilerStep(1, start - 1000, end + 1000);
    return end + 1000;
  }

 private:
  // --- time and ids ---

  int64_t Local(int64_t global_ns) const { return global_ns - layout_.clock_shift_ns; }

  // CPU timestamps are sometimes whole microseconds, as Kineto writes for host events.
  int64_t LocalCpu(int64_t global_ns) {
    const int64_t local = Local(global_ns);
    return rng_.Percent(25) ? local - local % 1000 : local;
  }

  int64_t NextExternalId() { return next_external_id_++; }
  int64_t NextCorrelation() { return next_correlation_++; }
  int CpuTid(bool backward) const { return layout_.cpu_pid + (backward ? 3 : 0); }

  // --- document frame ---

  void WriteHeader() {
    out_.Raw("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
    for (int i = 0; i < 8; ++i) {
      out_.Raw(i == 0 ? "\n    " : ",\n    ").Raw(R"({"id": )").Int(i);
      out_.Raw(R"(, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045379072, )");
      out_.Raw(R"("computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, )");
      out_.Raw(R"("maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, )");
      out_.Raw(R"("warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132})");
    }
    out_.Raw("\n  ],\n  \"distributedInfo\": ");
    WriteDistributedInfo();
    out_.Raw(",\n  \"record_shapes\": 1,\n  \"with_stack\": 0,\n  \"traceEvents\": [");
  }

  void WriteIntList(const std::vector<int>& values) {
    out_.Raw("[");
    for (size_t i = 0; i < values.size(); ++i) out_.Raw(i == 0 ? "" : ", ").Int(values[i]);
    out_.Raw("]");
  }

  void WriteProcessGroup(std::string_view name, std::string_view desc,
                         const std::vector<int>& ranks) {
    out_.Raw(R"({"pg_name": )").Str(name).Raw(R"(, "pg_desc": )").Str(desc);
    out_.Raw(R"(, "backend_config": "cuda:nccl", "pg_size": )").Int(std::ssize(ranks));
    out_.Raw(R"(, "ranks": )");
    WriteIntList(ranks);
    out_.Raw("}");
  }

  void WriteDistributedInfo() {
    std::vector<int> world, dp_shard, pp;
    for (int r = 0; r < layout_.world_size; ++r) world.push_back(r);
    const int dp_first = layout_.global_rank - layout_.global_rank % 4;
    for (int r = dp_first; r < dp_first + 4; ++r) dp_shard.push_back(r);
    for (int s = 0; s < layout_.num_stages; ++s) pp.push_back(GlobalRankOfStage(s));
    out_.Raw(R"({"backend": "nccl", "rank": )").Int(layout_.global_rank);
    out_.Raw(R"(, "world_size": )").Int(layout_.world_size);
    out_.Raw(R"(, "pg_count": 3, "pg_config": [)");
    WriteProcessGroup("0", "default_pg", world);
    out_.Raw(", ");
    WriteProcessGroup("1", "mesh_dp_shard", dp_shard);
    out_.Raw(", ");
    WriteProcessGroup("2", "mesh_pp", pp);
    out_.Raw(R"(], "nccl_version": "2.27.5"})");
  }

  // --- metadata ---

  void EmitMeta(std::string_view name, int pid, int tid, std::string_view key) {
    out_.NextEvent().Raw(R"({"name": )").Str(name).Raw(R"(, "ph": "M", "ts": 0, "pid": )");
    out_.Int(pid).Raw(R"(, "tid": )").Int(tid).Raw(R"(, "args": {)").Str(key).Raw(": ");
  }
  void EmitMetaString(std::string_view name, int pid, int tid, std::string_view key,
                      std::string_view value) {
    EmitMeta(name, pid, tid, key);
    out_.Str(value).Raw("}}");
  }
  void EmitMetaInt(std::string_view name, int pid, int tid, std::string_view key, int64_t value) {
    EmitMeta(name, pid, tid, key);
    out_.Int(value).Raw("}}");
  }

  void WriteProcessMetadata() {
    const int pid = layout_.cpu_pid;
    EmitMetaString("process_name", pid, 0, "name", "python");
    EmitMetaString("process_labels", pid, 0, "labels", "CPU");
    EmitMetaInt("process_sort_index", pid, 0, "sort_index", pid);
    EmitMetaString("thread_name", pid, CpuTid(false), "name",
                   "thread " + std::to_string(pid) + " (python)");
    EmitMetaInt("thread_sort_index", pid, CpuTid(false), "sort_index", CpuTid(false));
    EmitMetaString("thread_name", pid, CpuTid(true), "name",
                   "thread " + std::to_string(CpuTid(true)) + " (pt_autograd_0)");
    EmitMetaInt("thread_sort_index", pid, CpuTid(true), "sort_index", CpuTid(true));
    EmitMetaString("process_name", kGpuPid, 0, "name", "python");
    EmitMetaString("process_labels", kGpuPid, 0, "labels", "GPU 0");
    EmitMetaInt("process_sort_index", kGpuPid, 0, "sort_index", 5000000);
  }

  // Kineto names a stream the first time it shows up; also records it for ProfilerStep copies.
  void TouchStream(int stream) {
    const auto index = static_cast<size_t>(stream);
    if (index >= announced_.size()) {
      announced_.resize(index + 1024, 0);
      in_step_.resize(index + 1024, 0);
    }
    if (!announced_[index]) {
      announced_[index] = 1;
      EmitMetaString("thread_name", kGpuPid, stream, "name", "stream " + std::to_string(stream));
      EmitMetaInt("thread_sort_index", kGpuPid, stream, "sort_index", stream);
    }
    if (!in_step_[index]) {
      in_step_[index] = 1;
      step_streams_.push_back(stream);
    }
  }

  // Replay streams rotate through the pool, so each graph replay lands on fresh stream ids and
  // a long trace touches hundreds of them.
  int TakeReplayStream() {
    const int stream = next_replay_stream_;
    next_replay_stream_ =
        stream == kLastReplayStream ? kFirstReplayStream : next_replay_stream_ + 1;
    return stream;
  }

  // --- event emitters ---

  void EmitXHead(std::string_view cat, std::string_view name, int pid, int tid, int64_t ts_local,
                 int64_t dur) {
    out_.NextEvent().Raw(R"({"ph": "X", "cat": ")").Raw(cat).Raw(R"(", "name": )").Str(name);
    out_.Raw(R"(, "pid": )").Int(pid).Raw(R"(, "tid": )").Int(tid);
    out_.Raw(R"(, "ts": )").Micros(ts_local).Raw(R"(, "dur": )").Micros(dur);
  }

  void EmitSliceCommonArgs(int stream, int64_t external_id, int64_t correlation) {
    out_.Raw(R"(, "args": {"External id": )").Int(external_id);
    out_.Raw(R"(, "queued": 0, "device": 0, "context": 1, "stream": )").Int(stream);
    out_.Raw(R"(, "correlation": )").Int(correlation);
  }

  void EmitKernelLaunchArgs(const KernelSpec& spec) {
    const int64_t blocks = int64_t{spec.grid[0]} * spec.grid[1] * spec.grid[2];
    const int64_t threads = int64_t{spec.block[0]} * spec.block[1] * spec.block[2];
    const int64_t blocks_per_sm_e6 = blocks * 1000000 / 132;
    const int64_t warps_per_sm_e6 = blocks_per_sm_e6 * threads / 32;
    const int64_t occupancy = std::min<int64_t>(100, warps_per_sm_e6 * 100 / 64 / 1000000);
    out_.Raw(R"(, "registers per thread": )").Int(spec.registers);
    out_.Raw(R"(, "shared memory": )").Int(spec.shared_mem);
    out_.Raw(R"(, "blocks per SM": )").Fixed(blocks_per_sm_e6, 6);
    out_.Raw(R"(, "warps per SM": )").Fixed(warps_per_sm_e6, 6);
    out_.Raw(R"(, "grid": [)").Int(spec.grid[0]).Raw(", ").Int(spec.grid[1]).Raw(", ");
    out_.Int(spec.grid[2]).Raw(R"(], "block": [)").Int(spec.block[0]).Raw(", ");
    out_.Int(spec.block[1]).Raw(", ").Int(spec.block[2]);
    out_.Raw(R"(], "est. achieved occupancy %": )").Int(occupancy);
  }

  void EmitCopyArgs(int64_t dur) {
    const int64_t bytes = rng_.Range(65536, 16 << 20);
    out_.Raw(R"(, "bytes": )").Int(bytes);
    // bytes per ns is GB/s; a zero-length copy reports 0 as Kineto does.
    out_.Raw(", \"memory bandwidth (GB/s)\": ").Fixed(dur > 0 ? bytes * 1000000 / dur : 0, 6);
  }

  void EmitCollectiveArgs(const CollectiveSpec& c) {
    out_.Raw(R"(, "Collective name": ")").Raw(c.collective);
    out_.Raw(R"(", "In msg nelems": )").Int(c.nelems).Raw(R"(, "Out msg nelems": )").Int(c.nelems);
    out_.Raw(R"(, "Group size": )").Int(c.collective == "send" ? 2 : 4);
    out_.Raw(R"(, "dtype": ")").Raw(c.dtype).Raw(R"(", "Process Group Name": ")").Raw(c.pg_name);
    out_.Raw(R"(", "Process Group Description": ")").Raw(c.pg_desc).Raw("\"");
  }

  // A measured GPU slice: integer pid/tid, args.stream == tid, dur >= 0.
  void EmitSlice(const KernelSpec& spec, int stream, int64_t start, int64_t dur,
                 int64_t external_id, int64_t correlation, std::string_view label) {
    TouchStream(stream);
    static constexpr std::array<std::string_view, 3> kCats = {"kernel", "gpu_memcpy", "gpu_memset"};
    EmitXHead(kCats[static_cast<size_t>(spec.cat)], spec.name, kGpuPid, stream, Local(start), dur);
    EmitSliceCommonArgs(stream, external_id, correlation);
    if (spec.cat == SliceCat::kKernel) {
      EmitKernelLaunchArgs(spec);
    } else {
      EmitCopyArgs(dur);
    }
    if (!label.empty()) out_.Raw(R"(, "name": )").Str(label);
    if (spec.collective != nullptr) EmitCollectiveArgs(*spec.collective);
    out_.Raw("}}");
  }

  void EmitFlowStart(int64_t id, int tid, int64_t ts_local) {
    out_.NextEvent().Raw(R"({"ph": "s", "id": )").Int(id).Raw(R"(, "pid": )").Int(layout_.cpu_pid);
    out_.Raw(R"(, "tid": )").Int(tid).Raw(R"(, "ts": )").Micros(ts_local);
    out_.Raw(R"(, "cat": "ac2g", "name": "ac2g"})");
  }

  // Lands exactly on the kernel's start: same integer ns, same text, same double.
  void EmitFlowEnd(int64_t id, int stream, int64_t kernel_start) {
    out_.NextEvent().Raw(R"({"ph": "f", "id": )").Int(id).Raw(R"(, "pid": 0, "tid": )");
    out_.Int(stream).Raw(R"(, "ts": )").Micros(Local(kernel_start));
    out_.Raw(R"(, "cat": "ac2g", "name": "ac2g", "bp": "e"})");
  }

  void EmitRuntime(std::string_view name, int cbid, int tid, int64_t ts_local, int64_t dur,
                   int64_t external_id, int64_t correlation) {
    EmitXHead("cuda_runtime", name, layout_.cpu_pid, tid, ts_local, dur);
    out_.Raw(R"(, "args": {"External id": )").Int(external_id).Raw(R"(, "cbid": )").Int(cbid);
    out_.Raw(R"(, "correlation": )").Int(correlation).Raw("}}");
  }

  void EmitCpuOp(const CpuOpSpec& op, int tid, int64_t ts_local, int64_t dur, int64_t external_id) {
    EmitXHead("cpu_op", op.name, layout_.cpu_pid, tid, ts_local, dur);
    out_.Raw(R"(, "args": {"External id": )").Int(external_id);
    out_.Raw(R"(, "Record function id": 0, "Sequence number": )").Int(next_sequence_++);
    out_.Raw(R"(, "Fwd thread id": 0, )").Raw(op.args);
    out_.Raw(R"(, "Ev Idx": )").Int(next_ev_idx_++).Raw("}}");
  }

  void EmitCpuAnnotation(std::string_view name, int tid, int64_t ts_local, int64_t dur,
                         int64_t external_id) {
    EmitXHead("user_annotation", name, layout_.cpu_pid, tid, ts_local, dur);
    out_.Raw(R"(, "args": {"External id": )").Int(external_id).Raw("}}");
  }

  void EmitGpuAnnotation(std::string_view name, int64_t external_id, int stream, int64_t start,
                         int64_t dur) {
    TouchStream(stream);
    EmitXHead("gpu_user_annotation", name, kGpuPid, stream, Local(start), dur);
    out_.Raw(R"(, "args": {"External id": )").Int(external_id).Raw("}}");
  }

  // Stream-level sync (tid == args.stream) or, with stream < 0, device-wide on tid -1.
  void EmitSync(std::string_view kind, int stream, int64_t start, int64_t dur) {
    const int64_t external_id = NextExternalId();
    const int64_t correlation = NextCorrelation();
    const int tid = stream >= 0 ? stream : -1;
    if (stream >= 0) TouchStream(stream);
    EmitXHead("cuda_sync", kind, kGpuPid, tid, Local(start), dur);
    out_.Raw(R"(, "args": {"External id": )").Int(external_id);
    out_.Raw(R"(, "cuda_sync_kind": )").Str(kind);
    if (stream >= 0) out_.Raw(R"(, "stream": )").Int(stream);
    out_.Raw(R"(, "correlation": )").Int(correlation).Raw(R"(, "device": 0, "context": 1}})");
    const bool wait = kind == "Stream Wait Event";
    const std::string_view api = wait          ? "cudaStreamWaitEvent"
                                 : stream >= 0 ? "cudaStreamSynchronize"
                                               : "cudaDeviceSynchronize";
    const int cbid = wait ? kCbidStreamWaitEvent : stream >= 0 ? kCbidStreamSync : kCbidDeviceSync;
    EmitRuntime(api, cbid, CpuTid(false), LocalCpu(start - 3000), dur + 4000, external_id,
                correlation);
  }

  int64_t KernelDuration(const KernelSpec& spec) {
    if (spec.cat == SliceCat::kKernel && rng_.Percent(2)) return 0;  // Kineto does record these
    return rng_.Range(spec.min_ns, spec.max_ns);
  }

  // Eager launch: cpu_op + runtime call on the CPU, one slice on `stream`, an ac2g pair.
  int64_t EmitEagerKernel(const KernelSpec& spec, int stream, int64_t start, bool backward,
                          std::string_view label = {}) {
    const int64_t external_id = NextExternalId();
    const int64_t correlation = NextCorrelation();
    const int64_t dur = KernelDuration(spec);
    EmitSlice(spec, stream, start, dur, external_id, correlation, label);
    EmitFlowEnd(correlation, stream, start);
    const int tid = CpuTid(backward);
    const int64_t launch = LocalCpu(start - rng_.Range(8000, 60000));
    EmitCpuOp(kCpuOps[rng_.Below(kCpuOps.size())], tid, launch - 2000, 9000, external_id);
    const bool copy = spec.cat == SliceCat::kMemcpy;
    const std::string_view api = copy                            ? "cudaMemcpyAsync"
                                 : spec.cat == SliceCat::kMemset ? "cudaMemsetAsync"
                                                                 : "cudaLaunchKernel";
    const int cbid = copy                            ? kCbidMemcpyAsync
                     : spec.cat == SliceCat::kMemset ? kCbidMemsetAsync
                                                     : kCbidLaunchKernel;
    EmitRuntime(api, cbid, tid, launch, rng_.Range(2000, 6000), external_id, correlation);
    EmitFlowStart(correlation, tid, launch);
    return start + dur;
  }

  // A layer's kernels share one label choice: the region's PP label, a module name nested
  // inside it, or none; that yields runs of named kernels broken by unnamed ones.
  LabelMode PickLabelMode(const GraphRegion& region) {
    if (region.label.empty() || !rng_.Percent(region.labeled_percent)) return LabelMode::kNone;
    if (region.pattern.second > 1 && rng_.Percent(30)) return LabelMode::kModule;
    return LabelMode::kRegion;
  }

  static std::string KernelLabel(const GraphRegion& region, LabelMode mode, size_t layer,
                                 bool attention_half) {
    switch (mode) {
      case LabelMode::kNone:
        return {};
      case LabelMode::kRegion:
        return region.label;
      case LabelMode::kModule:
        return "layers." + std::to_string(layer) +
               (attention_half ? ".attention" : ".feed_forward");
    }
    return {};
  }

  // Emits the kernels of a graph replay; returns the end of its last kernel.
  int64_t EmitGraphRegion(const GraphRegion& region) {
    const int64_t external_id = NextExternalId();
    const int64_t correlation = NextCorrelation();
    std::array<int, 4> streams{};
    std::array<int64_t, 4> cursor{};
    const int branches = std::clamp(region.branches, 1, 4);
    for (int b = 0; b < branches; ++b) {
      streams[b] = region.fixed_stream >= 0 ? region.fixed_stream + b : TakeReplayStream();
      cursor[b] = region.start_ns;
    }
    if (rng_.Percent(30)) EmitSync("Stream Wait Event", streams[0], region.start_ns - 1500, 500);

    const auto [pattern, pattern_size] = region.pattern;
    LabelMode mode = LabelMode::kNone;
    std::string label;
    int64_t last_main_start = region.start_ns;
    int64_t end = region.start_ns;
    std::array<bool, 4> used{};
    for (int i = 0; i < region.kernels; ++i) {
      const size_t pos = static_cast<size_t>(i) % pattern_size;
      const size_t layer = static_cast<size_t>(i) / pattern_size;
      if (pos == 0) mode = PickLabelMode(region);
      if (pos == 0 || pos == pattern_size / 2) {
        label = KernelLabel(region, mode, layer, pos < pattern_size / 2 || pattern_size == 1);
      }
      const int b = (i == 0 || branches == 1 || !rng_.Percent(30))
                        ? 0
                        : 1 + static_cast<int>(rng_.Below(static_cast<uint64_t>(branches - 1)));
      // Side branches often fork at the same instant as the main stream: equal timestamps.
      const bool fork = b != 0 && last_main_start >= cursor[b] && rng_.Percent(40);
      const int64_t gap = rng_.Percent(20) ? 0 : rng_.Range(300, 2500);
      const int64_t start = fork ? last_main_start : cursor[b] + gap;
      const KernelSpec& spec = *pattern[pos];
      const int64_t dur = KernelDuration(spec);
      EmitSlice(spec, streams[b], start, dur, external_id, correlation, label);
      if (i == 0) EmitFlowEnd(correlation, streams[b], start);
      if (b == 0) last_main_start = start;
      cursor[b] = start + dur;
      end = std::max(end, cursor[b]);
      used[b] = true;
    }
    EmitRegionAnnotations(region, streams, used, external_id, end);
    EmitGraphLaunch(region, external_id, correlation);
    return end;
  }

  // Kineto projects a GPU annotation onto every stream its kernels ran on: identical copies.
  void EmitRegionAnnotations(const GraphRegion& region, const std::array<int, 4>& streams,
                             const std::array<bool, 4>& used, int64_t external_id, int64_t end) {
    if (region.label.empty()) return;
    const int64_t ts = region.start_ns - 300;
    for (size_t b = 0; b < streams.size(); ++b) {
      if (used[b]) EmitGpuAnnotation(region.label, external_id, streams[b], ts, end + 300 - ts);
    }
  }

  void EmitGraphLaunch(const GraphRegion& region, int64_t external_id, int64_t correlation) {
    const int tid = CpuTid(region.backward);
    const int64_t launch = LocalCpu(region.start_ns - rng_.Range(20000, 150000));
    EmitCpuOp(kCpuOps[0], tid, launch - 6000, 4000, NextExternalId());
    if (!region.label.empty()) {
      EmitCpuAnnotation(region.label, tid, launch - 1000, 12000, external_id);
    }
    EmitRuntime("cudaGraphLaunch", kCbidGraphLaunch, tid, launch, rng_.Range(3000, 9000),
                external_id, correlation);
    EmitFlowStart(correlation, tid, launch);
  }

  // --- training schedule ---

  int64_t EmitForwardRegion(int mb, int kernels, int branches, int64_t start) {
    GraphRegion region;
    region.label = PpLabel(layout_.stage, "F", mb);
    region.pattern = Pattern(kForwardLayer);
    region.kernels = kernels;
    region.branches = branches;
    region.start_ns = start;
    return EmitGraphRegion(region);
  }

  int64_t EmitSendRecv(std::string label, int64_t start, bool backward) {
    GraphRegion region;
    region.label = std::move(label);
    region.pattern = Pattern(kSendRecvOnly);
    region.start_ns = start;
    region.backward = backward;
    return EmitGraphRegion(region);
  }

  void EmitStepPrologue(int64_t step_start) {
    int64_t t = EmitEagerKernel(kMemcpyHtoD, kComputeStream, step_start + 5000, false);
    EmitEagerKernel(kMemset, kComputeStream, t + 1000, false);
    GraphRegion unshard;
    unshard.label = PpLabel(layout_.stage, "UNSHARD", -1);
    unshard.pattern = Pattern(kAllGatherOnly);
    unshard.kernels = 2;
    unshard.branches = 2;
    unshard.start_ns = step_start + 30000;
    EmitGraphRegion(unshard);
  }

  // RECV_F (not on the first stage), forward graph, SEND_F (not on the last stage). RECV sits
  // at the slot start and SEND before the slot end, so stage s's SEND_F<m> always starts before
  // stage s+1's RECV_F<m>, whose slot comes next.
  void EmitForwardSlot(int mb, int64_t slot_start) {
    int64_t t = slot_start + rng_.Range(2000, 8000);
    if (layout_.stage > 0) {
      t = EmitSendRecv(PpLabel(layout_.stage, "RECV_F", mb), t, false) + rng_.Range(500, 3000);
    }
    t = EmitForwardRegion(mb, static_cast<int>(rng_.Range(20, 30)),
                          static_cast<int>(rng_.Range(1, 3)), t);
    // Eager work on a side stream overlapping the graph's tail.
    if (rng_.Percent(50)) EmitEagerKernel(kAdd, kSideStreamA, t - 20000, false);
    if (layout_.stage < layout_.num_stages - 1) {
      EmitSendRecv(PpLabel(layout_.stage, "SEND_F", mb), t + rng_.Range(500, 3000), false);
    }
  }

  // Mirror image of the forward slot, plus the gradient reduce-scatter after the backward.
  void EmitBackwardSlot(int mb, int64_t slot_start) {
    int64_t t = slot_start + rng_.Range(2000, 8000);
    if (layout_.stage < layout_.num_stages - 1) {
      t = EmitSendRecv(PpLabel(layout_.stage, "RECV_B", mb), t, true) + rng_.Range(500, 3000);
    }
    GraphRegion backward;
    backward.label = PpLabel(layout_.stage, "B", mb);
    backward.pattern = Pattern(kBackwardLayer);
    backward.kernels = static_cast<int>(rng_.Range(28, 42));
    backward.branches = static_cast<int>(rng_.Range(1, 3));
    backward.start_ns = t;
    backward.backward = true;
    t = EmitGraphRegion(backward);
    if (layout_.stage > 0) {
      EmitSendRecv(PpLabel(layout_.stage, "SEND_B", mb), t + rng_.Range(500, 3000), true);
    }
    GraphRegion reduce_scatter;
    reduce_scatter.pattern = Pattern(kReduceScatterOnly);
    reduce_scatter.start_ns = t + rng_.Range(1000, 5000);
    reduce_scatter.backward = true;
    EmitGraphRegion(reduce_scatter);
  }

  // Eager optimizer on the default stream while a grad-norm all-reduce and side-stream work
  // overlap it; then a stream sync and a device-wide sync.
  void EmitOptimizer(int64_t start) {
    EmitEagerKernel(kSymmBarrier, kBarrierStream, start, false);
    EmitEagerKernel(kNcclAllReduce, kSideStreamA, start + 40000, false);
    int64_t side = start + 30000;
    for (int i = 0; i < 4; ++i) side = EmitEagerKernel(kFill, kSideStreamB, side + 1500, false);
    int64_t t = start + 20000;
    for (int i = 0; i < 8; ++i) {
      t = EmitEagerKernel(i % 4 == 3 ? kNormScale : kAdamW, kComputeStream, t + 1000, false);
    }
    EmitSync("Stream Sync", kComputeStream, t + 2000, rng_.Range(500, 3000));
    EmitSync("Context Sync", -1, t + 10000, rng_.Range(1000, 4000));
  }

  // ProfilerStep#N on the CPU, and its GPU projection copied onto every stream of the step.
  void EmitProfilerStep(int step_number, int64_t start, int64_t end) {
    const std::string name = "ProfilerStep#" + std::to_string(step_number);
    const int64_t external_id = NextExternalId();
    EmitCpuAnnotation(name, CpuTid(false), LocalCpu(start - 200000), end - start, external_id);
    for (const int stream : step_streams_) {
      EmitGpuAnnotation(name, external_id, stream, start, end - start);
      in_step_[static_cast<size_t>(stream)] = 0;
    }
    step_streams_.clear();
  }

  RankLayout layout_;
  Rng rng_;
  JsonOut out_;
  int64_t next_external_id_ = 1;
  int64_t next_correlation_ = 1000;
  int64_t next_sequence_ = 0;
  int64_t next_ev_idx_ = 0;
  int next_replay_stream_ = kFirstReplayStream;
  std::vector<uint8_t> announced_;  // stream -> thread_name already written
  std::vector<uint8_t> in_step_;    // stream -> already in step_streams_
  std::vector<int> step_streams_;
};

// ---------------------------------------------------------------------------------------------
// Command line and drivers.

struct Options {
  std::string out;
  std::string out_dir;
  double size_mb = 0;
  uint64_t seed = 1;
  bool gzip = false;
  std::string shape = "default";
  int64_t count = -1;
  int pp_ranks = 0;
  int stage = 1;
  int microbatches = 4;
};

uint64_t StageSeed(uint64_t seed, int stage) {
  uint64_t state = seed ^ (0x5bd1e995ULL * static_cast<uint64_t>(stage + 1));
  return SplitMix64(state);
}

// Per-stage clock bases differ by a few hundred microseconds (with sub-us parts), as real
// ranks do; every stage's times derive from one global clock, shifted by its own base.
std::vector<int64_t> StageBaseTimes(uint64_t seed, int stages) {
  Rng rng(seed ^ 0xba5eba11ULL);
  std::vector<int64_t> bases;
  for (int s = 0; s < stages; ++s) bases.push_back(kBaseTimeNs + rng.Range(0, 900000));
  return bases;
}

RankLayout MakeLayout(int stage, int stages, int64_t base, int64_t min_base) {
  RankLayout layout;
  layout.stage = stage;
  layout.num_stages = stages;
  layout.global_rank = GlobalRankOfStage(stage);
  layout.world_size = stages * 4;
  layout.base_time_ns = base;
  layout.clock_shift_ns = base - min_base;
  layout.cpu_pid = 4000 + 17 * stage;
  // Same name with or without gzip, so that a .json.gz inflates to exactly the .json file.
  layout.trace_name = "rank" + std::to_string(layout.global_rank) + "_trace.json";
  return layout;
}

uint64_t TargetBytes(double size_mb) {
  return static_cast<uint64_t>(size_mb * 1e6);
}

// Training steps until every file together holds the requested amount of JSON.
int64_t EmitTrainingSteps(std::vector<std::unique_ptr<TraceWriter>>& writers, double size_mb,
                          int microbatches, int stages) {
  const StepTiming timing{microbatches, stages};
  const uint64_t target = TargetBytes(size_mb);
  int64_t t = kTraceStartNs;
  auto total = [&] {
    uint64_t sum = 0;
    for (const auto& w : writers) sum += w->bytes();
    return sum;
  };
  for (int step = 1; total() < target; ++step) {
    for (auto& w : writers) w->EmitTrainingStep(step, t, timing);
    t += timing.Length() + StepTiming::kGapNs;
  }
  return t;
}

int64_t DefaultCount(const std::string& shape) {
  if (shape == "identical_annotations") return 1000000;
  if (shape == "many_streams") return 100000;
  if (shape == "repeated_pp_key") return 10000;
  Fail("unknown --shape " + shape +
       " (default, identical_annotations, many_streams, repeated_pp_key)");
}

int64_t EmitShape(TraceWriter& writer, const std::string& shape, const Budget& budget) {
  const int64_t start = kTraceStartNs;
  if (shape == "identical_annotations") return writer.EmitIdenticalAnnotations(budget, start);
  if (shape == "many_streams") return writer.EmitManyStreams(budget, start);
  return writer.EmitRepeatedPpKey(budget, start);
}

// --count wins, then --size-mb, then the shape's default repetition count.
Budget ShapeBudget(const Options& opt) {
  Budget budget;
  if (opt.count >= 0) {
    budget.count = opt.count;
  } else if (opt.size_mb > 0) {
    budget.target_bytes = TargetBytes(opt.size_mb);
  } else {
    budget.count = DefaultCount(opt.shape);
  }
  return budget;
}

void RunSingle(const Options& opt) {
  constexpr int kStages = 4;
  const bool shaped = opt.shape != "default";
  // Shapes model stage 0 (its F/SEND_F keys); the default trace is a middle stage so that
  // every PP operation appears.
  const int stage = shaped ? 0 : opt.stage;
  const auto bases = StageBaseTimes(opt.seed, kStages);
  const int64_t min_base = *std::min_element(bases.begin(), bases.end());
  std::vector<std::unique_ptr<TraceWriter>> writers;
  writers.push_back(std::make_unique<TraceWriter>(
      MakeLayout(stage, kStages, bases[static_cast<size_t>(stage)], min_base),
      StageSeed(opt.seed, stage), OpenSink(opt.out, opt.gzip)));
  TraceWriter& writer = *writers.front();
  writer.Begin();
  const int64_t end = shaped ? EmitShape(writer, opt.shape, ShapeBudget(opt))
                             : EmitTrainingSteps(writers, opt.size_mb, opt.microbatches, kStages);
  writer.End(end);
  std::printf("%s: %llu bytes of JSON, %llu events\n", opt.out.c_str(),
              static_cast<unsigned long long>(writer.bytes()),
              static_cast<unsigned long long>(writer.events()));
}

void RunPipeline(const Options& opt) {
  const int stages = opt.pp_ranks;
  std::filesystem::create_directories(opt.out_dir);
  const auto bases = StageBaseTimes(opt.seed, stages);
  const int64_t min_base = *std::min_element(bases.begin(), bases.end());
  std::vector<std::unique_ptr<TraceWriter>> writers;
  for (int s = 0; s < stages; ++s) {
    RankLayout layout = MakeLayout(s, stages, bases[static_cast<size_t>(s)], min_base);
    const std::string file = layout.trace_name + (opt.gzip ? ".gz" : "");
    const std::string path = (std::filesystem::path(opt.out_dir) / file).string();
    writers.push_back(std::make_unique<TraceWriter>(std::move(layout), StageSeed(opt.seed, s),
                                                    OpenSink(path, opt.gzip)));
    writers.back()->Begin();
  }
  const int64_t end = EmitTrainingSteps(writers, opt.size_mb, opt.microbatches, stages);
  uint64_t total = 0;
  for (auto& w : writers) {
    total += w->bytes();
    w->End(end);
  }
  std::printf("%s: %d ranks, %llu bytes of JSON\n", opt.out_dir.c_str(), stages,
              static_cast<unsigned long long>(total));
}

Options ParseOptions(int argc, char** argv) {
  cxxopts::Options spec("tracecompact_gen",
                        "Deterministic generator of CUDA-graph Kineto traces for benchmarks.\n"
                        "MB means 10^6 bytes of uncompressed JSON.");
  Options opt;
  spec.add_options()("out", "output trace file (single mode)", cxxopts::value(opt.out))(
      "out-dir", "output folder for rank<N>_trace.json[.gz] (--pp-ranks mode)",
      cxxopts::value(opt.out_dir))("size-mb", "stop after this much JSON (all ranks together)",
                                   cxxopts::value(opt.size_mb))(
      "seed", "random seed", cxxopts::value(opt.seed)->default_value("1"))(
      "gzip", "write gzip (ISA-L level 1)", cxxopts::value(opt.gzip))(
      "shape", "default | identical_annotations | many_streams | repeated_pp_key",
      cxxopts::value(opt.shape)->default_value("default"))(
      "count", "repetitions for a named shape (default: 1e6 / 1e5 / 1e4, or --size-mb)",
      cxxopts::value(opt.count))("pp-ranks", "write this many pipeline stages",
                                 cxxopts::value(opt.pp_ranks))(
      "stage", "pipeline stage of a single default trace (of 4)",
      cxxopts::value(opt.stage)->default_value("1"))(
      "microbatches", "microbatches per step",
      cxxopts::value(opt.microbatches)->default_value("4"))(
      "version", "print the output format version")("h,help", "show help");
  const auto parsed = spec.parse(argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", spec.help().c_str());
    std::exit(0);
  }
  if (parsed.count("version")) {
    std::printf("tracecompact_gen format %d\n", kFormatVersion);
    std::exit(0);
  }
  if (!parsed.unmatched().empty()) Fail("unexpected argument: " + parsed.unmatched().front());
  if (opt.microbatches < 1) Fail("--microbatches must be >= 1");
  if (opt.pp_ranks != 0) {
    if (opt.pp_ranks < 2) Fail("--pp-ranks must be >= 2");
    if (opt.out_dir.empty() || !opt.out.empty()) Fail("--pp-ranks needs --out-dir and no --out");
    if (opt.shape != "default") Fail("--shape applies to single traces only");
    if (opt.size_mb <= 0) Fail("--size-mb must be > 0");
  } else {
    if (opt.out.empty()) Fail("--out is required (or --pp-ranks K --out-dir DIR)");
    if (opt.shape == "default" && opt.size_mb <= 0) Fail("--size-mb must be > 0");
    if (opt.shape != "default") DefaultCount(opt.shape);  // validates the name
    if (opt.stage < 0 || opt.stage > 3) Fail("--stage must be in [0, 3]");
  }
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options opt = ParseOptions(argc, argv);
    if (opt.pp_ranks != 0) {
      RunPipeline(opt);
    } else {
      RunSingle(opt);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tracecompact_gen: %s\n", e.what());
    return 1;
  }
}
