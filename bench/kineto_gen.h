#pragma once
// Synthetic Kineto (PyTorch profiler) trace generator, shared by strobe-gen-kineto and the benchmarks.
//
// The output copies the structure of the real traces in tests/data/kineto (the 8-rank DLRM set for the
// NVIDIA profile, the MI300X ResNet trace for the AMD profile): the same top-level keys, Kineto's
// pretty-printed event layout, the same categories in about the same proportions, ProfilerStep#N user
// annotations, nested cpu_op trees, cuda_runtime launches paired with ac2g s/f flows whose id is the
// correlation, kernels on a compute stream plus an NCCL stream and a copy/side stream (overlapping),
// gpu_memcpy/gpu_memset, python_function stacks (AMD, with_stack), fwdbwd flows (AMD), metadata (ph M)
// events, the profiler's Trace span and instants, and about the same bytes per event.
//
// Events are written per training step in Kineto's section order (CPU ops, python functions, runtime
// calls, GPU activities), straight into a large buffer: no per-event heap allocation once warm.
// Deterministic: the structure depends on the seed only (every step runs the same model, as in real
// multi-step traces) and on (seed, step) for what varies between steps, never on the rank, so all ranks
// run the same ops and their collectives line up; timings depend on (seed, rank, step). The last rank is a
// mild straggler.
// Standard library + zlib only; knows nothing of Strobe's parser.

#include <zlib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace strobe::bench {

// Bumped whenever the output for given options changes (benchmarks name their cached traces with it).
inline constexpr int kGeneratorVersion = 2;

enum class GenPlatform : uint8_t { Nvidia, Amd };

struct KinetoGenOptions {
    uint64_t targetBytes = 1ull << 30;  // approximate size of this file; ignored when kernels > 0
    uint64_t kernels = 0;               // stop after about this many kernels (category kernel) in this file
    GenPlatform platform = GenPlatform::Nvidia;
    bool floatTs = false;               // ts/dur as µs with three decimals (AMD style) instead of integers
    uint64_t seed = 1;
    int rank = 0;
    int worldSize = 1;
    std::string traceName;              // "traceName" value; empty: a Kineto-like default
};

// Category slots counted by the generator (for shape checks and reports).
enum class GenCat : uint8_t {
    CpuOp, UserAnnotation, GpuUserAnnotation, Runtime, Kernel, Memcpy, Memset, PythonFunction,
    FlowAc2gS, FlowAc2gF, FlowFwdBwdS, FlowFwdBwdF, Metadata, Trace, Instant, Count
};
inline constexpr std::array<std::string_view, static_cast<size_t>(GenCat::Count)> kGenCatNames = {
    "cpu_op", "user_annotation", "gpu_user_annotation", "cuda_runtime", "kernel", "gpu_memcpy", "gpu_memset",
    "python_function", "ac2g s", "ac2g f", "fwdbwd s", "fwdbwd f", "M", "Trace", "i"};

struct KinetoGenStats {
    uint64_t bytes = 0;
    uint64_t events = 0;
    uint64_t steps = 0;
    std::array<uint64_t, static_cast<size_t>(GenCat::Count)> byCat{};
    uint64_t count(GenCat c) const { return byCat[static_cast<size_t>(c)]; }
};

// ---------------------------------------------------------------------------------------------------------
// Output sinks

class GenSink {
public:
    virtual ~GenSink() = default;
    virtual bool write(const char* data, size_t size) = 0;
    virtual bool close() { return true; }
};

class FileGenSink final : public GenSink {
public:
    explicit FileGenSink(const std::string& path) : m_file(std::fopen(path.c_str(), "wb")) {
        if (m_file) std::setvbuf(m_file, nullptr, _IONBF, 0);  // we hand over multi-MB blocks ourselves
    }
    ~FileGenSink() override { close(); }
    bool ok() const { return m_file != nullptr; }
    bool write(const char* data, size_t size) override {
        return m_file && std::fwrite(data, 1, size, m_file) == size;
    }
    bool close() override {
        if (!m_file) return true;
        const bool good = std::fclose(m_file) == 0;
        m_file = nullptr;
        return good;
    }

private:
    std::FILE* m_file;
};

class GzipGenSink final : public GenSink {
public:
    GzipGenSink(const std::string& path, int level) {
        const std::string mode = "wb" + std::to_string(std::clamp(level, 1, 9));
        m_file = gzopen(path.c_str(), mode.c_str());
        if (m_file) gzbuffer(m_file, 1u << 20);
    }
    ~GzipGenSink() override { close(); }
    bool ok() const { return m_file != nullptr; }
    bool write(const char* data, size_t size) override {
        while (size > 0) {
            const unsigned n = static_cast<unsigned>(std::min<size_t>(size, 1u << 30));
            if (!m_file || gzwrite(m_file, data, n) != static_cast<int>(n)) return false;
            data += n;
            size -= n;
        }
        return true;
    }
    bool close() override {
        if (!m_file) return true;
        const bool good = gzclose(m_file) == Z_OK;
        m_file = nullptr;
        return good;
    }

private:
    gzFile m_file = nullptr;
};

// ---------------------------------------------------------------------------------------------------------
// Implementation details

namespace gen_detail {

using TimeNs = int64_t;

// splitmix64: tiny, fast, identical on every platform (std distributions are not).
class Rng {
public:
    explicit Rng(uint64_t seed = 0) : m_s(seed) {}
    uint64_t next() {
        uint64_t z = (m_s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint32_t below(uint32_t n) { return n ? static_cast<uint32_t>(next() % n) : 0; }
    int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
    double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
    bool chance(double p) { return unit() < p; }
    // Skewed pick: small indices much more often (a few kernels dominate real traces).
    uint32_t skewed(uint32_t n) { const double u = unit(); return std::min<uint32_t>(n - 1, static_cast<uint32_t>(n * u * u)); }
    // Roughly log-normal factor around 1 (sum of uniforms as a cheap normal).
    double jitter(double sigma) {
        const double g = (unit() + unit() + unit() + unit() - 2.0) * 1.7320508;
        return std::exp(sigma * g);
    }

private:
    uint64_t m_s;
};

inline uint64_t mix(uint64_t a, uint64_t b) {
    Rng r(a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull));
    return r.next();
}

// Append-only text buffer flushed to a sink in large blocks.
class Out {
public:
    Out(GenSink& sink, size_t capacity) : m_sink(sink), m_buf(capacity) { m_p = m_buf.data(); }
    static constexpr size_t kMaxEvent = 64 * 1024;  // every event fits; checked before each event

    void reserve() {
        if (static_cast<size_t>(m_buf.data() + m_buf.size() - m_p) < kMaxEvent) flush();
    }
    bool flush() {
        const size_t n = static_cast<size_t>(m_p - m_buf.data());
        if (n && !m_sink.write(m_buf.data(), n)) m_failed = true;
        m_total += n;
        m_p = m_buf.data();
        return !m_failed;
    }
    uint64_t written() const { return m_total + static_cast<uint64_t>(m_p - m_buf.data()); }
    bool failed() const { return m_failed; }

    template <size_t N>
    void lit(const char (&s)[N]) { std::memcpy(m_p, s, N - 1); m_p += N - 1; }
    void str(std::string_view s) { std::memcpy(m_p, s.data(), s.size()); m_p += s.size(); }
    void ch(char c) { *m_p++ = c; }
    void num(int64_t v) { m_p = std::to_chars(m_p, m_p + 24, v).ptr; }
    void dbl(double v) { m_p = std::to_chars(m_p, m_p + 32, v).ptr; }
    void fixed1(double v) { m_p = std::to_chars(m_p, m_p + 32, v, std::chars_format::fixed, 1).ptr; }
    // Microseconds from nanoseconds: integer, or three decimals exactly.
    void us(TimeNs ns, bool floatTs) {
        if (!floatTs) { num(ns / 1000); return; }
        num(ns / 1000);
        const int frac = static_cast<int>(ns % 1000);
        m_p[0] = '.';
        m_p[1] = static_cast<char>('0' + frac / 100);
        m_p[2] = static_cast<char>('0' + frac / 10 % 10);
        m_p[3] = static_cast<char>('0' + frac % 10);
        m_p += 4;
    }
    void hex(uint64_t v) { m_p = std::to_chars(m_p, m_p + 20, v, 16).ptr; }

private:
    GenSink& m_sink;
    std::vector<char> m_buf;
    char* m_p;
    uint64_t m_total = 0;
    bool m_failed = false;
};

enum class KClass : uint8_t {
    Gemm, Elementwise, Reduce, Norm, Conv, Attention, Copy, Optim, Transpose,
    NcclAllReduce, NcclAllGather, NcclReduceScatter, NcclSendRecv, NcclBroadcast, Count
};

struct KernelDef {
    std::string name;
    TimeNs baseNs = 5000;
    int grid[3] = {1, 1, 1};
    int block[3] = {128, 1, 1};
    int regs = 32;
    int smem = 0;
};

enum class GpuKind : uint8_t { Kernel, Memcpy, Memset };
enum class CpuCat : uint8_t { CpuOp, UserAnnotation, Python };

struct CpuEv {
    TimeNs ts = 0, dur = 0;
    std::string_view name;
    int64_t extId = 0;
    int64_t evIdx = 0;
    int64_t seq = -1;       // "Sequence number", -1 when absent
    int64_t pyId = 0, pyParent = 0;  // python_function ids (parent 0 = null)
    int64_t flowId = 0;     // fwdbwd flow id (AMD), 0 = none
    uint32_t shapeSeed = 0;
    CpuCat cat = CpuCat::CpuOp;
    uint8_t thread = 0;     // 0 main, 1 autograd
    uint8_t nIn = 0;
    char flowPh = 0;        // 's' (forward op) or 'f' (backward evaluate_function)
    bool bwd = false;       // has "Fwd thread id" + "Sequence number"
    int16_t comm = -1;      // index into the step's collectives (record_param_comms), -1 none
};

struct RtEv {
    TimeNs ts = 0, dur = 0;
    std::string_view name;
    int64_t extId = 0;
    int64_t corr = 0;
    int cbid = 0;
    int32_t gpu = -1;       // index of the launched GPU activity in the step, -1 for non-launch calls
    uint8_t thread = 0;
    uint8_t rtKind = 0;     // 0 other, 1 kernel launch, 2 memcpy, 3 memset
    uint8_t extFlavour = 0; // AMD: 0 hipLaunchKernel, 1 hipExtModuleLaunchKernel
};

struct GpuEv {
    TimeNs ts = 0, dur = 0;
    const KernelDef* kernel = nullptr;  // kernels
    std::string_view name;              // memcpy/memset
    int64_t corr = 0;
    int64_t extId = 0;      // 0: written without "External id" (AMD activities launched internally)
    int64_t bytes = 0;
    int stream = 0;
    GpuKind kind = GpuKind::Kernel;
    uint8_t copyKind = 0;   // memcpy direction index
    int16_t comm = -1;
};

struct Collective {
    const char* coll;       // "allreduce", "allgather" ...
    const char* annot;      // "nccl:all_reduce" ...
    int64_t nelems = 0;
};

struct GpuRange {
    std::string_view name;
    int64_t extId = 0;
    size_t first = 0, last = 0;  // GPU activity index range [first, last)
};

}  // namespace gen_detail

// ---------------------------------------------------------------------------------------------------------

class KinetoGenerator {
public:
    KinetoGenerator(const KinetoGenOptions& options, GenSink& sink)
        : m_o(options), m_out(sink, 8u << 20), m_amd(options.platform == GenPlatform::Amd) {
        buildKernelPool();
        m_device = m_o.rank % 8;
        m_cpuPid = m_amd ? 542 + 97 * m_o.rank : 59811 + 13 * m_o.rank;
        m_tid[0] = m_cpuPid;
        m_tid[1] = m_cpuPid + (m_amd ? 97 : 165);
        m_streamCompute = m_amd ? 0 : 7;
        m_streamNccl = m_amd ? 4 : 24;
        m_streamCopy = m_amd ? 1 : 22;
        m_base = m_amd ? 3743411222487063LL : 1694128201426556000LL;
        m_quantum = m_o.floatTs ? 1 : 1000;
        m_cpuSlow = (m_o.worldSize > 1 && m_o.rank == m_o.worldSize - 1) ? 1.08 : 1.0;
    }

    // Writes the whole trace. False if the sink failed.
    bool run() {
        writeHeader();
        m_now[0] = m_now[1] = m_base + 100 * 1000;
        for (uint64_t step = 0;; ++step) {
            if (m_o.kernels > 0) {
                if (m_stats.count(GenCat::Kernel) >= m_o.kernels) break;
            } else if (m_out.written() + 4096 >= m_o.targetBytes && step > 0) {
                break;
            }
            generateStep(step);
            emitStep();
            ++m_stats.steps;
            if (m_out.failed()) return false;
        }
        writeFooter();
        m_out.flush();
        m_stats.bytes = m_out.written();
        return !m_out.failed();
    }

    const KinetoGenStats& stats() const { return m_stats; }

private:
    using TimeNs = gen_detail::TimeNs;
    using KClass = gen_detail::KClass;
    using CpuEv = gen_detail::CpuEv;
    using RtEv = gen_detail::RtEv;
    using GpuEv = gen_detail::GpuEv;
    using CpuCat = gen_detail::CpuCat;
    using GpuKind = gen_detail::GpuKind;

    // ----- kernel names ------------------------------------------------------------------------------------
    void addKernel(KClass c, std::string name, TimeNs baseNs, int gx, int bx, int regs, int smem) {
        gen_detail::KernelDef k;
        k.name = std::move(name);
        k.baseNs = baseNs;
        k.grid[0] = gx; k.grid[1] = 1 + static_cast<int>(baseNs % 3); k.grid[2] = 1;
        k.block[0] = bx;
        k.regs = regs;
        k.smem = smem;
        m_kernels[static_cast<size_t>(c)].push_back(std::move(k));
    }

    void buildKernelPool() {
        const char* tiles[] = {"32x32x64", "64x64x64", "128x128x64", "256x128x64", "128x64x32", "64x128x32",
                               "256x256x32", "16x16x128"};
        const char* functors[] = {
            "AUnaryFunctor<{T}, {T}, {T}, at::native::binary_internal::MulFunctor<float> >",
            "CUDAFunctorOnSelf_add<{T}>", "CUDAFunctor_add<{T}>", "FillFunctor<{T}>",
            "BinaryFunctor<{T}, {T}, {T}, at::native::binary_internal::MulFunctor<float> >",
            "(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
            "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
            "const::{lambda({T})#1}",
            "sqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()"
            "() const::{lambda({T})#1}",
            "addcmul_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#1}::operator()() const::"
            "{lambda()#6}::operator()() const::{lambda({T}, {T}, {T})#1}",
            "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
            "{lambda()#4}::operator()() const::{lambda({T})#1}",
            "silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() "
            "const::{lambda({T})#1}",
            "AUnaryFunctor<{T}, {T}, bool, at::native::(anonymous namespace)::CompareEqFunctor<{T}> >",
            "neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()"
            "() const::{lambda({T})#1}"};
        const std::string T = m_amd ? "c10::BFloat16" : "float";
        const std::string arr = m_amd ? "std::array<char*, 2ul>" : "at::detail::Array<char*, 2>";
        auto subst = [&](std::string s) {
            for (size_t p; (p = s.find("{T}")) != std::string::npos;) s.replace(p, 3, T);
            return s;
        };
        // GEMM
        if (m_amd) {
            const char* layouts[] = {"Ailk_Bljk", "Alik_Bljk", "Ailk_Bjlk", "Alik_Bjlk"};
            for (int i = 0; i < 16; ++i) {
                std::string n = "Cijk_";
                n += layouts[i % 4];
                n += "_BBS_BH_MT";
                n += tiles[(i * 3) % 8];
                n += "_MI16x16x16x1_SN_1LDSB" + std::to_string(i % 2) +
                     "_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS" + std::to_string(i % 4) +
                     "_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR0_DTLA0_DTLB0_DTVA0_DTVB0_DVO0_ETSP_EPS1_"
                     "ELFLR" + std::to_string((i * 5) % 9) +
                     "_EMLL0_FSSC10_FL0_GLVWA2_GLVWB" + std::to_string(2 << (i % 3)) +
                     "_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS" + std::to_string(i % 2) +
                     "_ISA942_IU1_K1_KLA_LBSPPA512_LBSPPB" + std::to_string(128 << (i % 2)) +
                     "_LPA16_LPB16_LDL1_LRVW8_LWPMn1_LDW0_FMA_MIAV" + std::to_string(i % 2) +
                     "_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC" + std::to_string(i % 3) +
                     "_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR" + std::to_string(1 + i % 2) +
                     "_PLR5_PKA0_SIA3_SLW1_SS1_SU64_SUM0_SUS128_SCIUI1_SPO0_SRVW0_SSO0_SVW4_SNLL0_TSGRA0_TSGRB0_TT"
                     "2_32_TLDS1_UMLDSA0_UMLDSB1_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB2_VFLRP1_WSGRA0_WSGRB0_WS64_WG32_8_1_"
                     "WGM" + std::to_string(8 << (i % 2));
                addKernel(KClass::Gemm, n, 20000 + 9000 * i, 64 << (i % 4), 256, 128, 32768);
            }
            addKernel(KClass::Gemm, "wvSplitK_hf_sml_(int, int, __hip_bfloat16 const*, __hip_bfloat16 const*, "
                                    "__hip_bfloat16*, int, int)", 9000, 80, 64, 96, 0);
            addKernel(KClass::Gemm, "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::tensor_"
                                    "layout::gemm::RowMajor, ck::tensor_layout::gemm::ColumnMajor, ck::tensor_layout::"
                                    "gemm::RowMajor, ck::bhalf_t, ck::bhalf_t, float, ck::bhalf_t, 256, 128, 128, 64, "
                                    "8, 8, 32, 32, 2, 2>, true, 1, 2>(ck::GridwiseGemm_xdl_cshuffle_v3<>::Argument)",
                      45000, 304, 256, 128, 65536);
        } else {
            const char* nv[] = {
                "volta_sgemm_128x64_nn", "volta_sgemm_128x32_nt", "ampere_sgemm_128x64_tn",
                "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_"
                "off_kernel__5x_cublas",
                "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_segment_k_"
                "off_kernel__5x_cublas",
                "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", "nvjet_tst_256x128_64x4_2x1_v_bz_coopB_TNN",
                "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>("
                "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8::Params)",
                "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_80_tensorop_"
                "s1688gemm_256x64_16x4_nn_align4::Params)",
                "void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false, cublasGemvTensorStridedBatched<float const>,"
                " cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >(cublasGemmSmall"
                "NParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
                "cublasGemvTensorStridedBatched<float>, float>)",
                "void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false, false, false>("
                "cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*,"
                " float const*, float const*, float*, void*, long, float*, int*)"};
            int i = 0;
            for (const char* n : nv) { addKernel(KClass::Gemm, n, 15000 + 11000 * i, 32 << (i % 4), 128, 72 + i, 13824); ++i; }
        }
        // Elementwise
        for (size_t i = 0; i < std::size(functors); ++i) {
            const int vec = m_amd ? 8 : 4;
            std::string f = subst(functors[i]);
            std::string n = "void at::native::vectorized_elementwise_kernel<" + std::to_string(vec) +
                            ", at::native::" + f + ", " + arr + " >(int, at::native::" + f + ", " + arr + ")";
            addKernel(KClass::Elementwise, n, 2000 + 700 * static_cast<TimeNs>(i), 8 << (i % 6), 128, 18 + static_cast<int>(i), 0);
            if (i % 3 == 0) {
                std::string u = "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::"
                                 "native::" + f + " >(at::TensorIteratorBase&, at::native::" + f +
                                 " const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::" +
                                 f + " >(at::TensorIteratorBase&, at::native::" + f + " const&)::{lambda(int)#1})";
                addKernel(KClass::Elementwise, u, 3000 + 900 * static_cast<TimeNs>(i), 16, 128, 30, 0);
            }
        }
        if (m_amd) {
            addKernel(KClass::Elementwise, "SubTensorOpWithScalar1d", 1500, 65536, 256, 16, 0);
            addKernel(KClass::Elementwise, "SubTensorOpWithCastTensor1d", 1800, 65536, 256, 16, 0);
            addKernel(KClass::Elementwise, "triton_poi_fused_add_mul_0", 2200, 1024, 256, 24, 0);
            addKernel(KClass::Elementwise, "__amd_rocclr_fillBufferAligned", 1900, 1024, 256, 12, 0);
        }
        // Reduce
        for (int i = 0; i < 4; ++i) {
            const char* ops[] = {"sum_functor<{T}, float, {T}>", "MeanOps<{T}, float, float, {T}>",
                                 "NormTwoOps<{T}, float, float>", "MaxOps<float>"};
            std::string op = subst(ops[i]);
            addKernel(KClass::Reduce, "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<" + T +
                                          ", at::native::" + op + ", unsigned int, " + T + ", 4> >(at::native::ReduceOp<" +
                                          T + ", at::native::" + op + ", unsigned int, " + T + ", 4>)",
                      6000 + 2500 * i, 160, 512, 40, 4096);
        }
        if (m_amd) addKernel(KClass::Reduce, "triton_red_fused__to_copy_mean_pow_1", 5200, 2048, 512, 40, 2048);
        // Norm
        addKernel(KClass::Norm, "void at::native::batch_norm_collect_statistics_kernel<at::native::Var, " + T + ", " +
                                    T + ", float, int>(at::GenericPackedTensorAccessor<" + T +
                                    " const, 3ul, at::RestrictPtrTraits, int>, float, float, at::GenericPacked"
                                    "TensorAccessor<float, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensor"
                                    "Accessor<float, 1ul, at::RestrictPtrTraits, int>)",
                  12000, 256, 512, 40, 2048);
        addKernel(KClass::Norm, "void at::native::batch_norm_transform_input_kernel<" + T + ", " + T +
                                    ", float, true, int>(at::GenericPackedTensorAccessor<" + T +
                                    " const, 3ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<" + T +
                                    ", 3ul, at::RestrictPtrTraits, int>)",
                  9000, 256, 512, 32, 0);
        addKernel(KClass::Norm, "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<" + T +
                                    ", float>(int, float, " + T + " const*, " + T + " const*, " + T + " const*, float*, float*, " +
                                    T + "*)",
                  7000, 4096, 256, 48, 0);
        if (m_amd) addKernel(KClass::Norm, "MIOpenBatchNormFwdTrainSpatial", 11000, 256, 1024, 64, 4096);
        // Conv
        if (m_amd) {
            addKernel(KClass::Conv, "naive_conv_ab_nonpacked_fwd_nchw_half_double_half", 60000, 1024, 256, 64, 0);
            addKernel(KClass::Conv, "igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_"
                                    "1x4x1x32_tb1x8x2x1_1x4x1x32_me", 80000, 512, 256, 128, 32768);
            addKernel(KClass::Transpose, "batched_transpose_16x32_half", 3000, 512, 256, 24, 2048);
            addKernel(KClass::Transpose, "batched_transpose_32x32_half", 3500, 512, 256, 24, 4096);
            addKernel(KClass::Transpose, "batched_transpose_32x16_half", 3200, 512, 256, 24, 2048);
        } else {
            addKernel(KClass::Conv, "sm80_xmma_fprop_implicit_gemm_indexed_f32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128"
                                    "x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
                      70000, 512, 256, 168, 81920);
            addKernel(KClass::Conv, "void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 8, 3, 3, 5, false, 512>(int, int,"
                                    " int, float const*, int, float*, float const*, kernel_grad_params, unsigned long "
                                    "long, int, float, int, int, int, int)",
                      90000, 256, 256, 128, 45056);
            addKernel(KClass::Transpose, "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
                                         "(cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, float const*, "
                                         "float*)", 4000, 512, 256, 24, 0);
        }
        // Attention
        if (m_amd) {
            addKernel(KClass::Attention, "void ck_tile::kentry<256, 1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipeline"
                                         "QRKSVSAsync<ck_tile::BlockFmhaPipelineProblem<ck_tile::bf16_t, ck_tile::bf16_t,"
                                         " ck_tile::bf16_t, float, float, ck_tile::bf16_t, unsigned short, float, "
                                         "ck_tile::bf16_t, ck_tile::bf16_t, ck_tile::bf16_t> > > >(ck_tile::FmhaFwd"
                                         "Kernel<>::Kargs)", 120000, 304, 256, 128, 65536);
        } else {
            addKernel(KClass::Attention, "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, "
                                         "false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, "
                                         "cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>("
                                         "pytorch_flash::Flash_fwd_params)", 110000, 132, 128, 255, 49152);
            addKernel(KClass::Attention, "fmha_cutlassB_bf16_aligned_64x64_k128_sm80(PyTorchMemEffAttention::Attention"
                                         "BackwardKernel<cutlass::arch::Sm80, cutlass::bfloat16_t, true, false, false, "
                                         "64, 64, 128, false>::Params)", 180000, 132, 128, 255, 81920);
        }
        // Copy / cat
        addKernel(KClass::Copy, "void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<at::native::"
                                "(anonymous namespace)::OpaqueType<2u>, unsigned int, 1, 128, 1>(at::native::(anonymous "
                                "namespace)::OpaqueType<2u>*, at::native::(anonymous namespace)::CatArrInputTensor"
                                "Metadata<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 128, 1>, "
                                "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned "
                                "int)", 4000, 40, 256, 32, 0);
        addKernel(KClass::Copy, "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
                                "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
                                "const::{lambda(float)#1}, " + arr + ", TrivialOffsetCalculator<1, unsigned int>, "
                                "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, "
                                "at::native::memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda(at::"
                                "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
                                "const::{lambda(float)#1}, " + arr + ", TrivialOffsetCalculator<1, unsigned int>, "
                                "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, "
                                "at::native::memory::StoreWithCast<1>)", 3000, 64, 128, 28, 0);
        // Optimizer
        addKernel(KClass::Optim, "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
                                 "(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::"
                                 "BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>(at::native::"
                                 "(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::"
                                 "BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)",
                  25000, 320, 512, 40, 0);
        addKernel(KClass::Optim, "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
                                 "(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::"
                                 "ZeroFunctor<float, 1, 1, 0>>(at::native::(anonymous namespace)::TensorListMetadata<1>, "
                                 "at::native::(anonymous namespace)::ZeroFunctor<float, 1, 1, 0>)",
                  8000, 320, 512, 24, 0);
        // Collectives
        if (m_amd) {
            for (auto c : {KClass::NcclAllReduce, KClass::NcclAllGather, KClass::NcclReduceScatter, KClass::NcclSendRecv,
                           KClass::NcclBroadcast})
                addKernel(c, "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", 400000, 104, 256, 64, 0);
            addKernel(KClass::NcclAllReduce, "ncclKernel_AllReduce_RING_LL_Sum_bf16(ncclDevComm*, unsigned long, ncclWork*)",
                      350000, 104, 256, 64, 0);
        } else {
            addKernel(KClass::NcclAllReduce, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
                      300000, 24, 256, 96, 0);
            addKernel(KClass::NcclAllReduce, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                      320000, 24, 512, 96, 0);
            addKernel(KClass::NcclAllGather, "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                      250000, 24, 512, 96, 0);
            addKernel(KClass::NcclReduceScatter,
                      "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 260000, 24,
                      512, 96, 0);
            addKernel(KClass::NcclSendRecv, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
                      200000, 16, 256, 96, 0);
            addKernel(KClass::NcclBroadcast, "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
                      150000, 24, 256, 96, 0);
        }
    }

    // ----- step model --------------------------------------------------------------------------------------
    TimeNs q(TimeNs ns) const { return std::max<TimeNs>(m_quantum, (ns + m_quantum - 1) / m_quantum * m_quantum); }
    TimeNs q0(TimeNs ns) const { return ns / m_quantum * m_quantum; }
    // CPU time advances: `lo..hi` ns, jittered by the rank's timing RNG and its slowness.
    void advance(int th, TimeNs lo, TimeNs hi) {
        const TimeNs d = static_cast<TimeNs>(static_cast<double>(m_time.range(lo, hi)) * m_cpuSlow);
        m_now[th] += q0(d);
    }

    size_t open(int th, std::string_view name, CpuCat cat, int nIn) {
        CpuEv e;
        e.ts = m_now[th];
        e.name = name;
        e.cat = cat;
        e.thread = static_cast<uint8_t>(th);
        e.nIn = static_cast<uint8_t>(nIn);
        if (cat == CpuCat::Python) {
            e.pyId = ++m_pyId;
            e.pyParent = m_pyStack[th].empty() ? (th == 0 ? 3 : 0) : m_cpu[m_pyStack[th].back()].pyId;
            m_pyStack[th].push_back(m_cpu.size());
        } else {
            e.extId = ++m_extId;
            m_extStack[th].push_back(e.extId);
        }
        e.evIdx = m_evIdx++;
        e.shapeSeed = static_cast<uint32_t>(m_struct.next());
        m_cpu.push_back(e);
        advance(th, 300, 2500);
        return m_cpu.size() - 1;
    }
    void close(int th, size_t i) {
        advance(th, 300, 2000);
        CpuEv& e = m_cpu[i];
        e.dur = m_now[th] - e.ts;
        if (e.cat == CpuCat::Python) m_pyStack[th].pop_back();
        else m_extStack[th].pop_back();
        advance(th, 200, 1500);
    }
    int64_t currentExt(int th) const { return m_extStack[th].empty() ? 0 : m_extStack[th].back(); }

    // Python frames around an op group (AMD with_stack traces): a chain plus a few builtin leaves.
    int pyBegin(int th, int depth) {
        if (!m_amd) return 0;
        static constexpr std::string_view frames[] = {
            "torch/nn/modules/module.py(1747): _wrapped_call_impl", "torch/nn/modules/module.py(1736): _call_impl",
            "torchvision/models/resnet.py(285): forward", "torchvision/models/resnet.py(146): forward",
            "torch/nn/modules/conv.py(554): forward", "torch/nn/modules/conv.py(549): _conv_forward",
            "torch/nn/modules/batchnorm.py(193): forward", "torch/nn/functional.py(2812): batch_norm",
            "torch/utils/checkpoint.py(1101): pack_hook", "torch/utils/checkpoint.py(596): _internal_assert",
            "torch/autograd/grad_mode.py(184): __init__", "torch/nn/modules/module.py(1915): __getattr__",
            "weakref.py(454): __contains__", "torch/_jit_internal.py(103): is_scripting"};
        static constexpr std::string_view builtins[] = {
            "<built-in function is_grad_enabled>", "<built-in function len>",
            "<built-in method append of list object at 0x7f0e871077c0>", "<built-in function _set_grad_enabled>",
            "<built-in function isinstance>", "<built-in method get of dict object at 0x7f468be6f440>"};
        for (int d = 0; d < depth; ++d) {
            open(th, frames[(d * 2 + m_struct.below(3)) % std::size(frames)], CpuCat::Python, 0);
            if (m_struct.chance(0.9)) close(th, open(th, builtins[m_struct.below(std::size(builtins))], CpuCat::Python, 0));
        }
        return depth;
    }
    void pyEnd(int th, int depth) {
        for (int d = 0; d < depth; ++d) close(th, m_pyStack[th].back());
    }

    const gen_detail::KernelDef* pickKernel(KClass c) {
        auto& pool = m_kernels[static_cast<size_t>(c)];
        if (pool.empty()) return &m_kernels[static_cast<size_t>(KClass::Elementwise)][0];
        return &pool[m_struct.skewed(static_cast<uint32_t>(pool.size()))];
    }

    void nonLaunch(int th) {
        static constexpr std::string_view nv[] = {"cudaStreamIsCapturing", "cudaEventQuery", "cudaPeekAtLastError",
                                                  "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                                                  "cudaStreamWaitEvent", "cudaDeviceGetAttribute", "cudaEventRecord"};
        static constexpr int nvCbid[] = {317, 138, 9, 251, 147, 5, 135};
        static constexpr std::string_view amd[] = {"hipGetDevicePropertiesR0600", "hipStreamIsCapturing",
                                                   "hipStreamWaitEvent", "hipStreamGetCaptureInfo_v2", "hipEventDestroy"};
        static constexpr int amdCid[] = {370, 290, 200, 301, 47};
        RtEv r;
        const uint32_t k = m_amd ? m_var.below(std::size(amd)) : m_var.skewed(std::size(nv));
        r.name = m_amd ? amd[k] : nv[k];
        r.cbid = m_amd ? amdCid[k] : nvCbid[k];
        r.ts = m_now[th];
        advance(th, 500, 3000);
        r.dur = m_now[th] - r.ts;
        r.thread = static_cast<uint8_t>(th);
        r.extId = currentExt(th);
        r.corr = ++m_corr;
        m_rt.push_back(r);
        advance(th, 200, 1200);
    }

    // A runtime call that launches one GPU activity, scheduled on `stream`.
    void launch(int th, GpuKind kind, const gen_detail::KernelDef* kd, int stream, int16_t comm = -1,
                bool internal = false) {
        RtEv r;
        GpuEv g;
        g.kind = kind;
        g.kernel = kd;
        g.stream = stream;
        g.comm = comm;
        g.corr = ++m_corr;
        r.corr = g.corr;
        r.thread = static_cast<uint8_t>(th);
        r.extId = currentExt(th);
        // AMD traces hold kernels that no traced runtime call launched (about a quarter in the MI300X trace):
        // no "External id", no runtime event, only the ac2g flow end.
        if (m_amd && kind == GpuKind::Kernel && stream == m_streamCompute && m_struct.chance(0.2)) internal = true;
        g.extId = internal ? 0 : r.extId;
        if (kind == GpuKind::Kernel) {
            r.rtKind = 1;
            if (m_amd) {
                r.extFlavour = static_cast<uint8_t>(m_struct.below(2));
                r.name = r.extFlavour ? "hipExtModuleLaunchKernel" : "hipLaunchKernel";
                r.cbid = r.extFlavour ? 65 : 107;
            } else {
                r.name = "cudaLaunchKernel";
                r.cbid = 211;
            }
        } else if (kind == GpuKind::Memcpy) {
            r.rtKind = 2;
            r.name = m_amd ? "hipMemcpyAsync" : "cudaMemcpyAsync";
            r.cbid = m_amd ? 134 : 41;
            g.copyKind = static_cast<uint8_t>(m_struct.below(3));
            g.bytes = 128LL << m_struct.below(18);
        } else {
            r.rtKind = 3;
            r.name = m_amd ? "hipMemsetAsync" : "cudaMemsetAsync";
            r.cbid = m_amd ? 159 : 51;
            g.bytes = 512LL << m_struct.below(14);
        }
        r.ts = m_now[th];
        advance(th, 2500, 9000);
        r.dur = m_now[th] - r.ts;
        // GPU side: starts after the launch returns (plus a queueing delay) and after the stream's last work.
        TimeNs& free = m_streamFree[streamSlot(stream)];
        const TimeNs ready = r.ts + r.dur + q0(m_time.range(1000, 8000));
        g.ts = std::max(free, ready);
        TimeNs d;
        if (kind == GpuKind::Kernel) d = static_cast<TimeNs>(static_cast<double>(kd->baseNs) * m_time.jitter(0.35));
        else d = 1000 + g.bytes / 20;  // ~20 GB/s
        g.dur = q(d);
        free = g.ts + g.dur;
        if (!internal) {
            r.gpu = static_cast<int32_t>(m_gpu.size());
            m_rt.push_back(r);
        }
        m_gpu.push_back(g);
        if (kind == GpuKind::Kernel) ++m_stepKernels;
        advance(th, 200, 1500);
        // Non-launch runtime calls around launches (NVIDIA traces have about one per launch).
        const double extra = m_amd ? 0.15 : 1.0;
        if (m_var.chance(extra * 0.5)) nonLaunch(th);
        if (m_var.chance(extra * 0.5)) nonLaunch(th);
    }
    size_t streamSlot(int stream) const {
        return stream == m_streamCompute ? 0 : stream == m_streamNccl ? 1 : 2;
    }

    void filler(int th, int n) {
        static constexpr std::string_view leaf[] = {"aten::view", "aten::empty", "aten::as_strided", "aten::resize_",
                                                    "aten::empty_like", "aten::result_type", "aten::empty_strided",
                                                    "aten::expand", "aten::unsqueeze", "aten::select"};
        for (int i = 0; i < n; ++i) {
            const uint32_t k = m_struct.below(14);
            if (k < 10) {
                close(th, open(th, leaf[k], CpuCat::CpuOp, 1 + static_cast<int>(m_struct.below(3))));
            } else if (k < 12) {
                size_t o = open(th, "aten::reshape", CpuCat::CpuOp, 2);
                close(th, open(th, "aten::view", CpuCat::CpuOp, 2));
                close(th, o);
            } else if (k < 13) {
                size_t o = open(th, "aten::detach", CpuCat::CpuOp, 1);
                close(th, open(th, "detach", CpuCat::CpuOp, 1));
                close(th, o);
            } else {
                size_t o = open(th, "aten::t", CpuCat::CpuOp, 1);
                size_t o2 = open(th, "aten::transpose", CpuCat::CpuOp, 3);
                close(th, open(th, "aten::as_strided", CpuCat::CpuOp, 4));
                close(th, o2);
                close(th, o);
            }
        }
    }
    int fillers() {
        // NVIDIA (DLRM) has ~6 cpu_ops per launch, AMD (ResNet, with python stacks) ~2.
        return static_cast<int>(m_struct.below(m_amd ? 2 : 8));
    }

    // One forward "layer op" on thread th; returns the template kind for the backward pass.
    int forwardOp(int th, int kind) {
        const int py = pyBegin(th, m_amd ? 7 + static_cast<int>(m_struct.below(10)) : 0);
        // Some layers are wrapped in a record_function range (DLRM's "## name ##" annotations).
        static constexpr std::string_view ranges[] = {"## forward ##", "## wait_sparse_data_dist ##",
                                                      "## KJTListAwaitable wait() ##", "## NoWait wait() ##",
                                                      "## embedding_lookup ##", "## interaction ##"};
        size_t ua = 0, uaGpu = 0;
        const bool wrapped = !m_amd && m_struct.chance(0.2);
        if (wrapped) annotationOpen(th, ranges[m_struct.below(std::size(ranges))], ua, uaGpu);
        // Host/device copies (AMD traces carry many DtoD copies).
        if (m_struct.chance(m_amd ? 0.45 : 0.12)) {
            size_t cp = open(th, "aten::copy_", CpuCat::CpuOp, 3);
            launch(th, GpuKind::Memcpy, nullptr, m_amd ? m_streamCompute : m_streamCopy);
            close(th, cp);
        }
        if (m_amd && m_struct.chance(0.05)) {
            size_t z = open(th, "aten::zero_", CpuCat::CpuOp, 1);
            launch(th, GpuKind::Memset, nullptr, m_streamCompute);
            close(th, z);
        }
        size_t top = 0;
        switch (kind) {
        case 0: {  // linear
            top = open(th, "aten::linear", CpuCat::CpuOp, 3);
            filler(th, fillers());
            size_t t = open(th, "aten::addmm", CpuCat::CpuOp, 3);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Gemm), m_streamCompute);
            close(th, t);
            break;
        }
        case 1: {  // conv
            top = open(th, "aten::conv2d", CpuCat::CpuOp, 7);
            size_t a = open(th, "aten::convolution", CpuCat::CpuOp, 9);
            size_t b = open(th, "aten::_convolution", CpuCat::CpuOp, 13);
            size_t c = open(th, m_amd ? "aten::miopen_convolution" : "aten::cudnn_convolution", CpuCat::CpuOp, 9);
            filler(th, fillers());
            if (m_amd) launch(th, GpuKind::Kernel, pickKernel(KClass::Transpose), m_streamCompute, -1, m_struct.chance(0.4));
            launch(th, GpuKind::Kernel, pickKernel(m_struct.chance(0.5) ? KClass::Conv : KClass::Gemm), m_streamCompute);
            if (m_amd) launch(th, GpuKind::Kernel, pickKernel(KClass::Transpose), m_streamCompute, -1, m_struct.chance(0.4));
            close(th, c); close(th, b); close(th, a);
            break;
        }
        case 2: {  // norm
            top = open(th, m_struct.chance(0.5) ? "aten::batch_norm" : "aten::layer_norm", CpuCat::CpuOp, 5);
            size_t a = open(th, "aten::_batch_norm_impl_index", CpuCat::CpuOp, 8);
            size_t b = open(th, "aten::native_batch_norm", CpuCat::CpuOp, 8);
            filler(th, fillers());
            launch(th, GpuKind::Kernel, pickKernel(KClass::Norm), m_streamCompute);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Norm), m_streamCompute);
            close(th, b); close(th, a);
            break;
        }
        case 3: {  // activation
            top = open(th, "aten::relu_", CpuCat::CpuOp, 1);
            size_t a = open(th, "aten::clamp_min_", CpuCat::CpuOp, 2);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Elementwise), m_streamCompute);
            close(th, a);
            break;
        }
        case 4: {  // add / mul
            top = open(th, m_struct.chance(0.5) ? "aten::add" : "aten::mul", CpuCat::CpuOp, 3);
            filler(th, fillers() / 2);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Elementwise), m_streamCompute);
            break;
        }
        case 5: {  // attention
            top = open(th, "aten::scaled_dot_product_attention", CpuCat::CpuOp, 7);
            size_t a = open(th, "aten::_scaled_dot_product_flash_attention", CpuCat::CpuOp, 7);
            filler(th, fillers());
            launch(th, GpuKind::Kernel, pickKernel(KClass::Attention), m_streamCompute);
            close(th, a);
            break;
        }
        case 6: {  // reduction
            top = open(th, m_struct.chance(0.5) ? "aten::sum" : "aten::mean", CpuCat::CpuOp, 4);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Reduce), m_streamCompute);
            break;
        }
        default: {  // cat / copy
            top = open(th, "aten::cat", CpuCat::CpuOp, 2);
            filler(th, fillers());
            launch(th, GpuKind::Kernel, pickKernel(KClass::Copy), m_streamCompute);
            break;
        }
        }
        filler(th, fillers());
        close(th, top);
        if (wrapped) annotationClose(th, ua, uaGpu, false);
        if (m_amd && m_struct.chance(0.3)) {  // some forward ops get a fwdbwd flow to their backward
            m_cpu[top].flowPh = 's';
            m_cpu[top].flowId = ++m_fwdBwdId;
            m_cpu[top].seq = ++m_seqNr;
            m_fwdFlowIds.push_back(m_cpu[top].flowId);
        } else {
            m_fwdFlowIds.push_back(0);
        }
        m_fwdSeqs.push_back(m_cpu[top].seq >= 0 ? m_cpu[top].seq : ++m_seqNr);
        pyEnd(th, py);
        return kind;
    }

    void backwardOp(int th, int kind, int64_t flowId, int64_t seq) {
        static constexpr std::string_view bwdNames[] = {"AddmmBackward0", "ConvolutionBackward0",
                                                        "NativeBatchNormBackward0", "ReluBackward0",
                                                        "AddBackward0", "ScaledDotProductFlashAttentionBackward0",
                                                        "SumBackward1", "CatBackward0"};
        static constexpr std::string_view evalNames[] = {
            "autograd::engine::evaluate_function: AddmmBackward0",
            "autograd::engine::evaluate_function: ConvolutionBackward0",
            "autograd::engine::evaluate_function: NativeBatchNormBackward0",
            "autograd::engine::evaluate_function: ReluBackward0", "autograd::engine::evaluate_function: AddBackward0",
            "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0",
            "autograd::engine::evaluate_function: SumBackward1", "autograd::engine::evaluate_function: CatBackward0"};
        const int py = pyBegin(th, m_amd ? 7 + static_cast<int>(m_struct.below(10)) : 0);
        if (m_amd && m_struct.chance(0.3)) {
            size_t cp = open(th, "aten::copy_", CpuCat::CpuOp, 3);
            launch(th, GpuKind::Memcpy, nullptr, m_streamCompute);
            close(th, cp);
        }
        size_t ev = open(th, evalNames[kind], CpuCat::CpuOp, 0);
        m_cpu[ev].bwd = true;
        m_cpu[ev].seq = seq;
        if (flowId) { m_cpu[ev].flowPh = 'f'; m_cpu[ev].flowId = flowId; }
        size_t fn = open(th, bwdNames[kind], CpuCat::CpuOp, 1);
        m_cpu[fn].bwd = true;
        m_cpu[fn].seq = seq;
        filler(th, fillers());
        switch (kind) {
        case 0: case 1: {
            for (int i = 0; i < 2; ++i) {
                size_t mm = open(th, kind == 0 ? "aten::mm" : "aten::convolution_backward", CpuCat::CpuOp, 2);
                launch(th, GpuKind::Kernel, pickKernel(kind == 0 || m_struct.chance(0.5) ? KClass::Gemm : KClass::Conv),
                       m_streamCompute);
                close(th, mm);
            }
            if (m_struct.chance(0.5)) {
                size_t s = open(th, "aten::sum", CpuCat::CpuOp, 3);
                launch(th, GpuKind::Kernel, pickKernel(KClass::Reduce), m_streamCompute);
                close(th, s);
            }
            break;
        }
        case 2: {
            size_t b = open(th, "aten::native_batch_norm_backward", CpuCat::CpuOp, 8);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Norm), m_streamCompute);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Reduce), m_streamCompute);
            close(th, b);
            break;
        }
        case 5: {
            size_t b = open(th, "aten::_scaled_dot_product_flash_attention_backward", CpuCat::CpuOp, 8);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Attention), m_streamCompute);
            close(th, b);
            break;
        }
        default: {
            size_t b = open(th, kind == 3 ? "aten::threshold_backward" : "aten::mul", CpuCat::CpuOp, 3);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Elementwise), m_streamCompute);
            close(th, b);
            break;
        }
        }
        close(th, fn);
        close(th, ev);
        // Gradient accumulation (AccumulateGrad) for parameterised layers.
        if (kind <= 2 && m_struct.chance(0.7)) {
            size_t a = open(th, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", CpuCat::CpuOp, 0);
            size_t b = open(th, "torch::autograd::AccumulateGrad", CpuCat::CpuOp, 0);
            size_t c = open(th, "aten::add_", CpuCat::CpuOp, 3);
            launch(th, GpuKind::Kernel, pickKernel(KClass::Elementwise), m_streamCompute);
            close(th, c); close(th, b); close(th, a);
        }
        pyEnd(th, py);
    }

    // A collective: user annotation + record_param_comms + an NCCL kernel on the NCCL stream.
    void collective(int th, KClass c, int64_t nelems) {
        static constexpr const char* colls[] = {"allreduce", "allgather", "reduce_scatter", "all_to_all", "broadcast"};
        static constexpr const char* annots[] = {"nccl:all_reduce", "nccl:_all_gather_base",
                                                 "nccl:_reduce_scatter_base", "nccl:all_to_all", "nccl:broadcast"};
        const int ci = static_cast<int>(c) - static_cast<int>(KClass::NcclAllReduce);
        gen_detail::Collective col{colls[ci], annots[ci], nelems};
        m_colls.push_back(col);
        const auto idx = static_cast<int16_t>(m_colls.size() - 1);
        size_t rp = open(th, "record_param_comms", CpuCat::CpuOp, 10);
        m_cpu[rp].comm = idx;
        size_t ua = open(th, annots[ci], CpuCat::UserAnnotation, 1);
        m_cpu[ua].comm = idx;
        launch(th, GpuKind::Kernel, pickKernel(c), m_streamNccl, idx);
        // NCCL kernels take long and run beside compute; make the duration scale with the message.
        GpuEv& g = m_gpu.back();
        g.dur = q(static_cast<TimeNs>(static_cast<double>(g.kernel->baseNs) * (0.3 + static_cast<double>(nelems) / 4.0e6) *
                                      m_time.jitter(0.2)));
        m_streamFree[1] = g.ts + g.dur;
        close(th, ua);
        close(th, rp);
    }

    void annotationOpen(int th, std::string_view name, size_t& cpuIdx, size_t& gpuFirst) {
        cpuIdx = open(th, name, CpuCat::UserAnnotation, 0);
        gpuFirst = m_gpu.size();
    }
    void annotationClose(int th, size_t cpuIdx, size_t gpuFirst, bool onGpu = true) {
        close(th, cpuIdx);
        if (onGpu && m_gpu.size() > gpuFirst)
            m_gpuAnnot.push_back({m_cpu[cpuIdx].name, m_cpu[cpuIdx].extId, gpuFirst, m_gpu.size()});
    }

    void generateStep(uint64_t step) {
        m_cpu.clear(); m_rt.clear(); m_gpu.clear(); m_colls.clear(); m_gpuAnnot.clear();
        m_fwdFlowIds.clear(); m_fwdSeqs.clear();
        // Every step runs the same model: the same ops, shapes and kernels (as in real multi-step traces, where
        // the args texts repeat from step to step); m_var varies what does change between steps (runtime polling
        // calls, data loading), m_time the timings (per rank as well).
        m_struct = gen_detail::Rng(gen_detail::mix(m_o.seed, 0x5717u));
        m_var = gen_detail::Rng(gen_detail::mix(m_o.seed ^ 0x9a7f3u, step));
        m_time = gen_detail::Rng(gen_detail::mix(m_o.seed ^ 0x5bd1e995ull, step * 1315423911ull + static_cast<uint64_t>(m_o.rank)));
        m_stepKernels = 0;
        m_stepNumber = static_cast<int64_t>(step) + 10;
        m_stepName = "ProfilerStep#" + std::to_string(m_stepNumber);
        const TimeNs start = std::max(m_now[0], m_now[1]);
        m_now[0] = m_now[1] = start;
        for (TimeNs& f : m_streamFree) f = std::max(f, start);

        size_t stepIdx, stepGpu;
        annotationOpen(0, m_stepName, stepIdx, stepGpu);
        // Data loading and host-to-device copies.
        {
            size_t dl, dg;
            annotationOpen(0, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", dl, dg);
            filler(0, 2 + static_cast<int>(m_struct.below(3)));
            annotationClose(0, dl, dg);
            for (int i = 0; i < 2; ++i) {
                size_t to = open(0, "aten::to", CpuCat::CpuOp, 5);
                size_t tc = open(0, "aten::_to_copy", CpuCat::CpuOp, 6);
                size_t cp = open(0, "aten::copy_", CpuCat::CpuOp, 3);
                launch(0, GpuKind::Memcpy, nullptr, m_streamCopy);
                close(0, cp); close(0, tc); close(0, to);
            }
        }
        // Forward on the main thread.
        const int layers = 40 + static_cast<int>(m_struct.below(20));
        std::array<int, 128> kinds{};
        {
            size_t fw, fg;
            annotationOpen(0, "DistributedDataParallel.forward", fw, fg);
            static constexpr int mixNv[] = {0, 0, 0, 3, 4, 4, 2, 6, 7, 5, 0, 4};
            static constexpr int mixAmd[] = {1, 1, 2, 2, 3, 3, 4, 0, 7, 6, 1, 2};
            for (int l = 0; l < layers; ++l) {
                const int kind = m_amd ? mixAmd[m_struct.below(12)] : mixNv[m_struct.below(12)];
                kinds[static_cast<size_t>(l)] = forwardOp(0, kind);
                if (l == 3 || m_struct.chance(0.03)) {
                    size_t o = open(0, "aten::fill_", CpuCat::CpuOp, 2);
                    launch(0, GpuKind::Memset, nullptr, m_streamCompute);
                    close(0, o);
                }
            }
            annotationClose(0, fw, fg);
        }
        // Backward on the autograd thread, gradients all-reduced in buckets as they become ready.
        m_now[1] = std::max(m_now[1], m_now[0]);
        for (int l = layers - 1; l >= 0; --l) {
            backwardOp(1, kinds[static_cast<size_t>(l)], m_fwdFlowIds[static_cast<size_t>(l)], m_fwdSeqs[static_cast<size_t>(l)]);
            if (l % 10 == 5) collective(1, KClass::NcclAllReduce, 2873320 - 250000LL * (l / 10));
        }
        if (m_struct.chance(0.4)) collective(1, KClass::NcclAllGather, 1048576);
        if (m_struct.chance(0.25)) collective(1, KClass::NcclReduceScatter, 524288);
        if (!m_amd && m_struct.chance(0.4)) collective(1, KClass::NcclSendRecv, 6144);
        if (m_struct.chance(0.15)) collective(1, KClass::NcclBroadcast, 65536);
        m_now[0] = std::max(m_now[0], m_now[1]);
        // Optimizer.
        {
            size_t zg, zgg;
            annotationOpen(0, m_amd ? "Optimizer.zero_grad#SGD.zero_grad" : "Optimizer.zero_grad#Adagrad.zero_grad", zg, zgg);
            size_t z = open(0, "aten::_foreach_zero_", CpuCat::CpuOp, 1);
            launch(0, GpuKind::Kernel, &m_kernels[static_cast<size_t>(KClass::Optim)][1], m_streamCompute);
            close(0, z);
            annotationClose(0, zg, zgg);
            size_t os, osg;
            annotationOpen(0, m_amd ? "Optimizer.step#SGD.step" : "Optimizer.step#Adagrad.step", os, osg);
            const int n = 3 + static_cast<int>(m_struct.below(4));
            for (int i = 0; i < n; ++i) {
                size_t f = open(0, i % 2 ? "aten::_foreach_mul_" : "aten::_foreach_add_", CpuCat::CpuOp, 3);
                filler(0, 1);
                launch(0, GpuKind::Kernel, &m_kernels[static_cast<size_t>(KClass::Optim)][0], m_streamCompute);
                close(0, f);
            }
            annotationClose(0, os, osg);
        }
        // Step end: the host waits for the device.
        {
            RtEv r;
            r.name = m_amd ? "hipDeviceSynchronize" : "cudaStreamSynchronize";
            r.cbid = m_amd ? 182 : 131;
            r.ts = m_now[0];
            r.thread = 0;
            r.extId = currentExt(0);
            r.corr = ++m_corr;
            const TimeNs gpuEnd = *std::max_element(m_streamFree.begin(), m_streamFree.end());
            m_now[0] = std::max(m_now[0] + 2000, gpuEnd + q0(m_time.range(2000, 10000)));
            m_now[0] = q0(m_now[0] + m_quantum - 1);
            r.dur = m_now[0] - r.ts;
            m_rt.push_back(r);
            advance(0, 1000, 3000);
        }
        annotationClose(0, stepIdx, stepGpu);
        m_now[1] = m_now[0];
        m_lastEnd = m_now[0];
    }

    // ----- emission ----------------------------------------------------------------------------------------
    void begin() {
        m_out.reserve();
        if (m_first) { m_first = false; m_out.lit("  {\n"); }
        else m_out.lit(",\n  {\n");
        ++m_stats.events;
    }
    void bump(GenCat c) { ++m_stats.byCat[static_cast<size_t>(c)]; }

    void xHead(std::string_view cat, std::string_view name, int64_t pid, int64_t tid, TimeNs ts, TimeNs dur) {
        m_out.lit("    \"ph\": \"X\", \"cat\": \"");
        m_out.str(cat);
        m_out.lit("\", \"name\": \"");
        m_out.str(name);
        m_out.lit("\", \"pid\": ");
        m_out.num(pid);
        m_out.lit(", \"tid\": ");
        m_out.num(tid);
        m_out.lit(",\n    \"ts\": ");
        m_out.us(ts, m_o.floatTs);
        m_out.lit(", \"dur\": ");
        m_out.us(dur, m_o.floatTs);
        m_out.lit(",\n    \"args\": {\n      ");
    }
    void xTail() { m_out.lit("\n    }\n  }"); }

    void flow(char ph, const char* cat, int64_t id, int64_t pid, int64_t tid, TimeNs ts) {
        begin();
        m_out.lit("    \"ph\": \"");
        m_out.ch(ph);
        m_out.lit("\", \"id\": ");
        m_out.num(id);
        m_out.lit(", \"pid\": ");
        m_out.num(pid);
        m_out.lit(", \"tid\": ");
        m_out.num(tid);
        m_out.lit(", \"ts\": ");
        m_out.us(ts, m_o.floatTs);
        m_out.lit(",\n    \"cat\": \"");
        m_out.str(cat);
        m_out.lit("\", \"name\": \"");
        m_out.str(cat);
        if (ph == 'f') m_out.lit("\", \"bp\": \"e\"\n  }");
        else m_out.lit("\"\n  }");
        const bool ac2g = cat[0] == 'a';
        bump(ac2g ? (ph == 's' ? GenCat::FlowAc2gS : GenCat::FlowAc2gF) : (ph == 's' ? GenCat::FlowFwdBwdS : GenCat::FlowFwdBwdF));
    }

    void shapes(uint32_t seed, int nIn) {
        static constexpr int dims[] = {1, 8, 16, 32, 64, 128, 256, 512, 768, 1024, 2048, 3072, 4096, 50257};
        gen_detail::Rng r(seed);
        char rk[16];
        for (int i = 0; i < nIn; ++i) rk[i] = static_cast<char>(r.below(i == nIn - 1 && nIn > 2 ? 1 : 4));
        std::string_view type = m_amd ? "\"c10::BFloat16\"" : "\"float\"";
        if (m_amd) {
            m_out.lit(", \"Concrete Inputs\": [");
            for (int i = 0; i < nIn; ++i) {
                if (i) m_out.lit(", ");
                if (rk[i] == 0 && i == nIn - 1) m_out.lit("\"1\""); else m_out.lit("\"\"");
            }
            m_out.lit("], \"Input type\": [");
        } else {
            m_out.lit(", \"Input Dims\": [");
            writeDims(r, rk, nIn, dims);
            m_out.lit("], \"Input type\": [");
        }
        for (int i = 0; i < nIn; ++i) {
            if (i) m_out.lit(", ");
            if (rk[i] == 0) m_out.lit("\"Scalar\""); else m_out.str(type);
        }
        m_out.ch(']');
        if (m_amd) {
            m_out.lit(", \"Input Strides\": [");
            gen_detail::Rng r2(seed ^ 0xABCDu);
            for (int i = 0; i < nIn; ++i) {
                if (i) m_out.lit(", ");
                m_out.ch('[');
                for (int d = 0; d < rk[i]; ++d) {
                    if (d) m_out.lit(", ");
                    m_out.num(d == rk[i] - 1 ? 1 : dims[r2.below(13)]);
                }
                m_out.ch(']');
            }
            m_out.lit("], \"Input Dims\": [");
            writeDims(r, rk, nIn, dims);
            m_out.ch(']');
        }
    }
    template <size_t N>
    void writeDims(gen_detail::Rng& r, const char* rk, int nIn, const int (&dims)[N]) {
        for (int i = 0; i < nIn; ++i) {
            if (i) m_out.lit(", ");
            m_out.ch('[');
            for (int d = 0; d < rk[i]; ++d) {
                if (d) m_out.lit(", ");
                m_out.num(dims[r.below(N)]);
            }
            m_out.ch(']');
        }
    }

    void emitCpu(const CpuEv& e) {
        const int64_t tid = m_tid[e.thread];
        begin();
        if (e.cat == CpuCat::Python) {
            xHead("python_function", e.name, m_cpuPid, tid, e.ts, e.dur);
            m_out.lit("\"Python parent id\": ");
            if (e.pyParent) m_out.num(e.pyParent); else m_out.lit("null");
            m_out.lit(", \"Python id\": ");
            m_out.num(e.pyId);
            m_out.lit(", \"Ev Idx\": ");
            m_out.num(e.evIdx);
            xTail();
            bump(GenCat::PythonFunction);
            return;
        }
        const bool ua = e.cat == CpuCat::UserAnnotation;
        xHead(ua ? "user_annotation" : "cpu_op", e.name, m_cpuPid, tid, e.ts, e.dur);
        m_out.lit("\"External id\": ");
        m_out.num(e.extId);
        m_out.ch(',');
        if (m_amd) m_out.lit("\"Record function id\": 0, ");
        if (m_amd && e.seq >= 0) {
            m_out.lit("\"Sequence number\": ");
            m_out.num(e.seq);
            m_out.lit(", \"Fwd thread id\": 1, ");
        }
        if (e.comm >= 0 && !ua) {
            commArgs(m_colls[static_cast<size_t>(e.comm)], true);
            m_out.lit(", \"Ev Idx\": ");
            m_out.num(e.evIdx);
        } else {
            if (m_amd) {
                m_out.lit("\"Ev Idx\": ");
                m_out.num(e.evIdx);
                if (e.nIn) shapes(e.shapeSeed, e.nIn);
            } else {
                m_out.lit("\"Ev Idx\": ");
                m_out.num(e.evIdx);
                if (e.nIn) shapes(e.shapeSeed, e.nIn);
                if (e.bwd) { m_out.lit(", \"Fwd thread id\": 1, \"Sequence number\": "); m_out.num(e.seq); }
            }
        }
        xTail();
        bump(ua ? GenCat::UserAnnotation : GenCat::CpuOp);
        if (e.flowPh) flow(e.flowPh, "fwdbwd", e.flowId, m_cpuPid, e.flowPh == 's' ? m_tid[0] : tid, e.ts);
    }

    void ranksString() {
        m_out.lit("\"[");
        for (int i = 0; i < m_o.worldSize; ++i) {
            if (i) m_out.lit(", ");
            m_out.num(i);
        }
        m_out.lit("]\"");
    }
    void commArgs(const gen_detail::Collective& c, bool cpu) {
        m_out.lit("\"Collective name\": \"");
        m_out.str(c.coll);
        m_out.lit("\", \"Process Group Description\": \"default_pg\", \"dtype\": \"");
        m_out.str(m_amd ? "BFloat16" : "Float");
        m_out.lit("\", ");
        if (cpu) {
            m_out.lit("\"Rank\": ");
            m_out.num(m_o.rank);
            m_out.lit(", \"Input Strides\": [[[1]], [], [], [], [], [], [], [], [], []], \"Concrete Inputs\": [\"\", "
                      "\"\", \"\", \"0\", \"\", \"[]\", \"[]\", \"0\", \"1\", \"");
            m_out.num(m_o.worldSize);
            m_out.lit("\"], ");
        }
        m_out.lit("\"Out msg nelems\": ");
        m_out.num(c.nelems);
        m_out.lit(", \"Process Group Name\": \"0\", ");
        if (cpu)
            m_out.lit("\"Input type\": [\"TensorList\", \"\", \"\", \"Scalar\", \"\", \"ScalarList\", \"ScalarList\", "
                      "\"Scalar\", \"Scalar\", \"Scalar\"], \"Global rank stride\": 1, ");
        m_out.lit("\"Out split size\": \"[]\", \"In split size\": \"[]\", \"Process Group Ranks\": ");
        ranksString();
        m_out.lit(", \"Group size\": ");
        m_out.num(m_o.worldSize);
        if (cpu) {
            m_out.lit(", \"Input Dims\": [[[");
            m_out.num(c.nelems);
            m_out.lit("]], [], [], [], [], [], [], [], [], []], \"Global rank start\": 0");
        }
        m_out.lit(", \"In msg nelems\": ");
        m_out.num(c.nelems);
    }

    void emitRuntime(const RtEv& r) {
        begin();
        xHead("cuda_runtime", r.name, m_cpuPid, m_tid[r.thread], r.ts, r.dur);
        m_out.lit("\"External id\": ");
        m_out.num(r.extId);
        const GpuEv* g = r.gpu >= 0 ? &m_gpu[static_cast<size_t>(r.gpu)] : nullptr;
        if (m_amd) {
            if (r.rtKind == 1 && g) {
                m_out.lit(",          \"kernel\": \"");
                m_out.str(g->kernel->name);
                m_out.lit("\", \"cid\": ");
                m_out.num(r.cbid);
                m_out.lit(", \"correlation\": ");
                m_out.num(r.corr);
                m_out.lit(",      \"grid\": [");
                gridBlock(g->kernel->grid);
                m_out.lit("],      \"block\": [");
                gridBlock(g->kernel->block);
                m_out.lit("],      \"shared memory\": ");
                m_out.num(g->kernel->smem);
            } else {
                m_out.lit(",      \"cid\": ");
                m_out.num(r.cbid);
                m_out.lit(", \"correlation\": ");
                m_out.num(r.corr);
                if (r.rtKind == 2 && g) {
                    m_out.lit(", \"src\": \"0x7f0e");
                    m_out.hex(0x4a7e8000u + static_cast<uint64_t>(r.corr % 4096) * 128);
                    m_out.lit("\", \"dst\": \"0x7f0e");
                    m_out.hex(0x79800400u + static_cast<uint64_t>(r.corr % 8192) * 512);
                    m_out.lit("\", \"bytes\": \"");
                    m_out.num(g->bytes);
                    m_out.lit("\", \"kind\": \"");
                    m_out.num(g->copyKind + 1);
                    m_out.ch('"');
                }
            }
        } else {
            m_out.lit(",\n      \"cbid\": ");
            m_out.num(r.cbid);
            m_out.lit(", \"correlation\": ");
            m_out.num(r.corr);
        }
        xTail();
        bump(GenCat::Runtime);
        if (g) flow('s', "ac2g", r.corr, m_cpuPid, m_tid[r.thread], r.ts);
        else flow('f', "ac2g", r.corr, m_cpuPid, m_tid[r.thread], r.ts);  // Kineto writes these dangling ends too
    }
    void gridBlock(const int (&v)[3]) {
        m_out.num(v[0]); m_out.lit(", "); m_out.num(v[1]); m_out.lit(", "); m_out.num(v[2]);
    }

    void emitGpu(const GpuEv& g) {
        static constexpr std::string_view copyNamesNv[] = {"Memcpy HtoD (Pinned -> Device)",
                                                           "Memcpy DtoH (Device -> Pageable)",
                                                           "Memcpy DtoD (Device -> Device)"};
        static constexpr std::string_view copyNamesAmd[] = {"Memcpy HtoD (Host -> Device)",
                                                            "Memcpy DtoH (Device -> Host)",
                                                            "Memcpy DtoD (Device -> Device)"};
        static constexpr std::string_view copyKindAmd[] = {"HtoD", "DtoH", "DtoD"};
        begin();
        std::string_view cat, name;
        if (g.kind == GpuKind::Kernel) { cat = "kernel"; name = g.kernel->name; bump(GenCat::Kernel); }
        else if (g.kind == GpuKind::Memcpy) {
            cat = "gpu_memcpy";
            name = m_amd ? copyNamesAmd[g.copyKind] : copyNamesNv[g.copyKind];
            bump(GenCat::Memcpy);
        } else { cat = "gpu_memset"; name = "Memset (Device)"; bump(GenCat::Memset); }
        xHead(cat, name, m_device, g.stream, g.ts, g.dur);
        if (m_amd) {
            if (g.extId) { m_out.lit("\"External id\": "); m_out.num(g.extId); m_out.lit(",      \"device\": "); }
            else m_out.lit("      \"device\": ");
            m_out.num(m_device);
            m_out.lit(", \"stream\": ");
            m_out.num(g.stream);
            m_out.lit(",      \"correlation\": ");
            m_out.num(g.corr);
            m_out.lit(", \"kind\": \"");
            if (g.kind == GpuKind::Kernel) m_out.lit("Dispatch Kernel");
            else if (g.kind == GpuKind::Memcpy) m_out.str(copyKindAmd[g.copyKind]);
            else m_out.lit("Device");
            m_out.ch('"');
            if (g.kind == GpuKind::Kernel && g.extId) {
                m_out.lit(",      \"grid\":     [");
                gridBlock(g.kernel->grid);
                m_out.lit("], \"block\":     [");
                gridBlock(g.kernel->block);
                m_out.ch(']');
                if (g.comm >= 0) { m_out.lit(", "); kernelCommArgs(m_colls[static_cast<size_t>(g.comm)]); }
            }
        } else {
            m_out.lit("\"External id\": ");
            m_out.num(g.extId);
            m_out.lit(",\n      ");
            if (g.kind == GpuKind::Kernel) m_out.lit("\"queued\": 0, ");
            m_out.lit("\"device\": ");
            m_out.num(m_device);
            m_out.lit(", \"context\": 1,\n      \"stream\": ");
            m_out.num(g.stream);
            m_out.lit(", \"correlation\": ");
            m_out.num(g.corr);
            if (g.kind == GpuKind::Kernel) {
                const auto* k = g.kernel;
                m_out.lit(",\n      \"registers per thread\": ");
                m_out.num(k->regs);
                m_out.lit(",\n      \"shared memory\": ");
                m_out.num(k->smem);
                const double blocksPerSm = static_cast<double>(k->grid[0] * k->grid[1]) / 132.0;
                m_out.lit(",\n      \"blocks per SM\": ");
                m_out.fixed1(blocksPerSm);
                m_out.lit(",\n      \"warps per SM\": ");
                m_out.fixed1(blocksPerSm * k->block[0] / 32.0);
                m_out.lit(",\n      \"grid\": [");
                gridBlock(k->grid);
                m_out.lit("],\n      \"block\": [");
                gridBlock(k->block);
                m_out.lit("],\n      \"est. achieved occupancy %\": ");
                m_out.num(std::min<int64_t>(100, 1 + (k->grid[0] * k->block[0]) / 2048));
                if (g.comm >= 0) { m_out.lit(",\n      "); kernelCommArgs(m_colls[static_cast<size_t>(g.comm)]); }
            } else {
                m_out.lit(",\n      \"bytes\": ");
                m_out.num(g.bytes);
                m_out.lit(", \"memory bandwidth (GB/s)\": ");
                m_out.dbl(static_cast<double>(g.bytes) / static_cast<double>(std::max<TimeNs>(1, g.dur)));
            }
        }
        xTail();
        flow('f', "ac2g", g.corr, m_device, g.stream, g.ts);
    }
    void kernelCommArgs(const gen_detail::Collective& c) {
        m_out.lit("\"Collective name\": \"");
        m_out.str(c.coll);
        m_out.lit("\", \"In msg nelems\": ");
        m_out.num(c.nelems);
        m_out.lit(", \"Out msg nelems\": ");
        m_out.num(c.nelems);
        m_out.lit(", \"Group size\": ");
        m_out.num(m_o.worldSize);
        m_out.lit(", \"dtype\": \"");
        m_out.str(m_amd ? "BFloat16" : "Float");
        m_out.lit("\", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Process Group Name\": \"0\", "
                  "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": ");
        ranksString();
    }

    void emitStep() {
        for (const CpuEv& e : m_cpu)
            if (e.cat != CpuCat::Python) emitCpu(e);
        for (const CpuEv& e : m_cpu)
            if (e.cat == CpuCat::Python) emitCpu(e);
        for (const RtEv& r : m_rt) emitRuntime(r);
        // Orphan GPU activities (no traced runtime call, AMD) are written with the others in stream order.
        for (const GpuEv& g : m_gpu) emitGpu(g);
        for (const auto& a : m_gpuAnnot) {
            TimeNs lo = INT64_MAX, hi = INT64_MIN;
            for (size_t i = a.first; i < a.last; ++i) {
                if (m_gpu[i].stream != m_streamCompute) continue;
                lo = std::min(lo, m_gpu[i].ts);
                hi = std::max(hi, m_gpu[i].ts + m_gpu[i].dur);
            }
            if (lo > hi) continue;
            begin();
            xHead("gpu_user_annotation", a.name, m_device, m_streamCompute, lo, hi - lo);
            m_out.lit("\"External id\": ");
            m_out.num(a.extId);
            xTail();
            bump(GenCat::GpuUserAnnotation);
        }
    }

    void meta(std::string_view name, int64_t pid, int64_t tid, std::string_view key, std::string_view strVal,
              int64_t numVal, bool isStr) {
        begin();
        m_out.lit("    \"name\": \"");
        m_out.str(name);
        m_out.lit("\", \"ph\": \"M\", \"ts\": ");
        m_out.us(m_base, m_o.floatTs);
        m_out.lit(", \"pid\": ");
        m_out.num(pid);
        m_out.lit(", \"tid\": ");
        m_out.num(tid);
        m_out.lit(",\n    \"args\": {\n      \"");
        m_out.str(key);
        m_out.lit("\": ");
        if (isStr) { m_out.ch('"'); m_out.str(strVal); m_out.ch('"'); }
        else m_out.num(numVal);
        m_out.lit("\n    }\n  }");
        bump(GenCat::Metadata);
    }

    void writeHeader() {
        m_out.lit("\n{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
        for (int d = 0; d < 8; ++d) {
            m_out.lit("    {\n      \"id\": ");
            m_out.num(d);
            if (m_amd) {
                m_out.lit(", \"name\": \"AMD Instinct MI300X\", \"totalGlobalMem\": 206141652992,\n"
                          "      \"computeMajor\": 9, \"computeMinor\": 4,\n"
                          "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                          "      \"regsPerBlock\": 65536, \"warpSize\": 64,\n"
                          "      \"sharedMemPerBlock\": 65536, \"numSms\": 304\n"
                          "    , \"maxSharedMemoryPerMultiProcessor\": 65536\n    }");
            } else {
                m_out.lit(", \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85029158912,\n"
                          "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
                          "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                          "      \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
                          "      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 233472,\n"
                          "      \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448\n    }");
            }
            m_out.str(d < 7 ? ",\n" : "\n");
        }
        m_out.lit("  ],\n");
        if (m_amd) m_out.lit("  \"roctracer_version\": 4.1,\n  \"hip_runtime_version\": 60443483,\n");
        m_out.lit("  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
        m_out.num(m_o.rank);
        m_out.lit(", \"world_size\": ");
        m_out.num(m_o.worldSize);
        m_out.lit(", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
                  "\"backend_config\": \"cuda:nccl\", \"pg_size\": ");
        m_out.num(m_o.worldSize);
        m_out.lit(", \"ranks\": [");
        for (int i = 0; i < m_o.worldSize; ++i) {
            if (i) m_out.lit(", ");
            m_out.num(i);
        }
        m_out.lit("]}], \"nccl_version\": \"2.22.3\"},\n  \"record_shapes\": 1,\n");
        if (m_amd)
            m_out.lit("  \"hip_driver_version\": 60443483,\n  \"with_stack\": 1,\n"
                      "  \"trace_id\": \"E2DD41CB5FBC4E7C9464E0B56B6B3E2B\",\n");
        m_out.lit("  \"traceEvents\": [\n");
        m_out.flush();
    }

    void writeFooter() {
        const TimeNs start = m_base + 100 * 1000;
        const TimeNs end = std::max(m_lastEnd, start + 1000);
        // Root python frames spanning the whole run (AMD with_stack): ids 1..3 were reserved for them.
        if (m_amd) {
            static constexpr std::string_view roots[] = {"train_ddp.py(184): <module>", "train_ddp.py(180): main",
                                                         "train_ddp.py(161): ddp_worker"};
            for (int i = 0; i < 3; ++i) {
                CpuEv e;
                e.cat = CpuCat::Python;
                e.name = roots[i];
                e.ts = start - (3 - i) * 2000;
                e.dur = end - e.ts + (3 - i) * 1000;
                e.pyId = i + 1;
                e.pyParent = i;
                e.evIdx = m_evIdx++;
                emitCpu(e);
            }
        }
        meta("process_name", m_cpuPid, 0, "name", "python3", 0, true);
        meta("process_labels", m_cpuPid, 0, "labels", "CPU", 0, true);
        meta("process_sort_index", m_cpuPid, 0, "sort_index", {}, m_cpuPid, false);
        meta("process_name", m_device, 0, "name", "python3", 0, true);
        const std::string gpuLabel = "GPU " + std::to_string(m_device);
        meta("process_labels", m_device, 0, "labels", gpuLabel, 0, true);
        meta("process_sort_index", m_device, 0, "sort_index", {}, 5000000 + m_device, false);
        for (int s : {m_streamCompute, m_streamNccl, m_streamCopy}) {
            const std::string nm = "stream " + std::to_string(s);
            meta("thread_name", m_device, s, "name", nm, 0, true);
            meta("thread_sort_index", m_device, s, "sort_index", {}, s, false);
        }
        for (int t = 0; t < 2; ++t) {
            const std::string nm = "thread " + std::to_string(m_tid[t]) + (t ? " (pt_autograd_0)" : " (python3)");
            meta("thread_name", m_cpuPid, m_tid[t], "name", nm, 0, true);
            meta("thread_sort_index", m_cpuPid, m_tid[t], "sort_index", {}, m_tid[t], false);
        }
        begin();
        m_out.lit("    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
        m_out.us(start, m_o.floatTs);
        m_out.lit(", \"dur\": ");
        m_out.us(end - start, m_o.floatTs);
        m_out.lit(",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n"
                  "    \"args\": {\n      \"Op count\": 0\n    }\n  }");
        bump(GenCat::Trace);
        begin();
        m_out.lit("    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": ");
        m_out.us(start, m_o.floatTs);
        m_out.lit(",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": 536870912\n    }\n  }");
        bump(GenCat::Metadata);
        begin();
        m_out.lit("    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
                  "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
        m_out.us(start, m_o.floatTs);
        m_out.lit("\n  }");
        bump(GenCat::Instant);
        begin();
        m_out.lit("    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
        m_out.us(end, m_o.floatTs);
        m_out.lit("\n  }");
        bump(GenCat::Instant);
        m_out.reserve();
        m_out.lit("\n  ],\n  \"traceName\": \"");
        if (m_o.traceName.empty()) {
            m_out.lit("./traces/rank");
            m_out.num(m_o.rank);
            m_out.lit("_synthetic.pt.trace.json");
        } else {
            m_out.str(m_o.traceName);
        }
        m_out.ch('"');
        if (m_amd) m_out.lit(",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1767189312000000000");
        m_out.lit("\n}\n");
    }

    KinetoGenOptions m_o;
    gen_detail::Out m_out;
    bool m_amd;
    bool m_first = true;
    KinetoGenStats m_stats;
    std::array<std::vector<gen_detail::KernelDef>, static_cast<size_t>(gen_detail::KClass::Count)> m_kernels;

    int m_device = 0;
    int64_t m_cpuPid = 0;
    int64_t m_tid[2] = {0, 0};
    int m_streamCompute = 7, m_streamNccl = 24, m_streamCopy = 22;
    TimeNs m_base = 0;
    TimeNs m_quantum = 1000;
    double m_cpuSlow = 1.0;

    gen_detail::Rng m_struct, m_var, m_time;
    TimeNs m_now[2] = {0, 0};
    std::array<TimeNs, 3> m_streamFree{};
    TimeNs m_lastEnd = 0;
    int64_t m_extId = 1024;
    int64_t m_corr = 4000;
    int64_t m_evIdx = 0;
    int64_t m_pyId = 3;  // 1..3: root frames written at the end
    int64_t m_fwdBwdId = 0;
    int64_t m_seqNr = 0;
    int64_t m_stepNumber = 0;
    uint64_t m_stepKernels = 0;
    std::string m_stepName;

    std::vector<CpuEv> m_cpu;
    std::vector<RtEv> m_rt;
    std::vector<GpuEv> m_gpu;
    std::vector<gen_detail::Collective> m_colls;
    std::vector<gen_detail::GpuRange> m_gpuAnnot;
    std::vector<int64_t> m_fwdFlowIds, m_fwdSeqs;
    std::vector<size_t> m_pyStack[2];
    std::vector<int64_t> m_extStack[2];
};

}  // namespace strobe::bench
