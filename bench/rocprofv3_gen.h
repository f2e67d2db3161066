#pragma once
// A synthetic rocprofv3 kernel_trace.csv shaped like the real ones (tests/data/rocprof/docs-2025/kernel_trace.csv:
// the same 22 columns in the same order, quoted strings, "Agent N" ids, increasing ns timestamps) with kernel names
// of the lengths real training runs have (short rocclr helpers to long templated GEMM/attention names).
#include <cstdint>
#include <cstdio>
#include <string>

namespace strobe::bench {

inline bool writeRocprofv3KernelTrace(const std::string& path, uint64_t targetBytes) {
    static const char* const kNames[] = {
        "__amd_rocclr_copyBuffer",
        "__amd_rocclr_fillBufferAligned",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
        "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
        "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
        "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
        "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
        "float>, unsigned int, float, 4>)",
        "_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_28GridwiseGemm_xdl_cshuffle_v3ILi256ELi128ELi128ELi64EEEEvNT_8ArgumentE",
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, "
        "float const*, float const*, float*, float*, float*)",
        "attn_fwd",
    };
    constexpr int kNameCount = sizeof(kNames) / sizeof(kNames[0]);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    std::fputs("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
               "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
               "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
               "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n",
               f);
    uint64_t written = 0, x = 88172645463325252ULL;
    int64_t t = 1550151853029637;
    std::string line;
    for (uint64_t id = 1; written < targetBytes; ++id) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const int k = static_cast<int>(x % kNameCount);
        const int agent = 2 + static_cast<int>((x >> 8) % 8);
        const int64_t dur = 2000 + static_cast<int64_t>((x >> 16) % 200000);
        t += 500 + static_cast<int64_t>((x >> 24) % 5000);
        char buf[768];
        const int n = std::snprintf(buf, sizeof buf,
                                    "\"KERNEL_DISPATCH\",\"Agent %d\",%d,%d,%d,%llu,%d,\"%s\",%llu,%lld,%lld,%d,0,%d,%d,"
                                    "%d,%d,1,1,%d,1,1\n",
                                    agent, 1 + (k & 3), (k & 1), 834304 + (k & 3), static_cast<unsigned long long>(id),
                                    10 + k, kNames[k], static_cast<unsigned long long>(id), static_cast<long long>(t),
                                    static_cast<long long>(t + dur), (k & 1) * 16384, 8 + 4 * k, (k & 2) * 4, 16 + k,
                                    64 << (k & 2), 1024 * (1 + k));
        if (n <= 0) break;
        std::fwrite(buf, 1, static_cast<size_t>(n), f);
        written += static_cast<uint64_t>(n);
    }
    return std::fclose(f) == 0;
}

}  // namespace strobe::bench
