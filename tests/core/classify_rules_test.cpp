// Kernel classification: real kernel names from the traces under tests/data and resources/sample with the category
// a performance engineer gives them, synthetic names of the libraries the traces here lack, and the rules file
// format (errors name file and line, user rules take precedence, long names are safe).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/model/classification.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

ClassificationRules bundled() {
    auto r = ClassificationRules::fromFile((std::string(STROBE_RESOURCE_DIR) + "/classification.yaml"));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? std::move(r.value()) : ClassificationRules{};
}

struct Case {
    const char* name;
    const char* category;
    const char* collective;
    bool truncated;  // the real name is longer: these are its first 400 characters
};

void expectCases(const ClassificationRules& rules, const Case* cases, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const Case& c = cases[i];
        Classification got = rules.classify(c.name, EventKind::Kernel);
        EXPECT_EQ(toString(got.category), c.category) << c.name;
        EXPECT_EQ(toString(got.collective), c.collective) << c.name;
        if (got.rule < 0 && std::string_view(c.category) != "other") ADD_FAILURE() << "no rule matched " << c.name;
    }
}

// Distinct kernel names taken from the real traces (python3 json over tests/data/kineto/** and
// resources/sample/param-dlrm-8rank; the comment names the first file holding each), classified by hand.
// Conventions: layout transforms and copies are elementwise; softmax and every *norm are normalization; pooling
// and scans are reductions; cuDNN/MIOpen/CK convolution helpers (offsets, split-K reductions, weight-gradient
// "gemm"s) are convolution; cuBLAS helpers (split-K reduce, epilogues, gemv) are GEMM; embeddings and sorts are
// other.
const Case kRealNames[] = {
    {"Cijk_Ailk_Bjlk_BBS_BH_Bias_HAS_SAV_UserArgs_MT64x32x64_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA512_LBSPPB256_LBSPPM0_LPA32_LPB16_LPM0_LRVW4_LWPMn1_MIAV0_MIWT2_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD4_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW2_SK0_SKXCCM0_TLDS0_ULSGRO0_USL1_UIOFGRO0_USFGR", "gemm", "none", true},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS1_USFGROn1_VSn1_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1", "gemm", "none", false},  // mi250_minitoy_train_ROCm6_2_kineto.json.
    {"SubTensorOpWithCastTensor1d", "elementwise", "none", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"SubTensorOpWithScalar1d", "elementwise", "none", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemmMultistageINS_4gemm9GemmShapeILi128ELi128ELi32EEENS4_52Conv2dWgradOutputGradientTileAccessIteratorOptimizedINS_11MatrixShapeILi128ELi32EEENS_10tfloat32_tENS_9transform29PitchLinearWarpRakedThreadMapINS_16PitchLinearShapeILi128ELi32EEELi128ENSF_ILi8ELi4EEELi4EEENS_12AlignedArrayISC_Li4ELi16EEEEEN", "convolution", "none", true},  // nccl_data.json.gz
    {"_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3INS_28GridwiseGemm_xdl_cshuffle_v3INS_13tensor_layout4gemm8RowMajorENS6_11ColumnMajorES7_ttfttNS0_12element_wise11PassThroughESA_SA_LNS1_18GemmSpecializationE7ELi256ELi64ELi64ELi64ELi8ELi8ELi32ELi32ELi1ELi1ENS_8SequenceIJLi8ELi32ELi1EEEENSC_IJLi1ELi0ELi2EEEESE_Li2ELi8ELi8ELb0ELi0ESD_SE_SE_Li2ELi8ELi8ELb0ELi0ELi1E", "convolution", "none", true},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"_ZN2ck16tensor_operation6device12_GLOBAL__N_149kernel_grouped_conv_fwd_multiple_abd_xdl_cshuffleINS_34GridwiseGemmMultipleD_xdl_cshuffleItttftNS_5TupleIJEEEtNS0_12element_wise11PassThroughES8_S8_LNS_25InMemoryDataOperationEnumE0ELi1ELi256ELi128ELi64ELi32ELi8ELi8ELi32ELi32ELi2ELi1ENS_8SequenceIJLi4ELi64ELi1EEEENSA_IJLi1ELi0ELi2EEEESC_Li2ELi8ELi8ELb0ELi1ESB_SC_SC_Li2ELi8ELi8ELb0ELi1ELi1ELi1ENSA_IJLi", "convolution", "none", true},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weightINS_47GridwiseGemm_bk0mk1_bk0nk1_mn_xdlops_bwd_weightILi64EttftLNS_25InMemoryDataOperationEnumE1ENS_16TensorDescriptorINS_5TupleIJNS_5EmbedINS6_IJiiEEENS6_IJiNS_17integral_constantIiLi1EEEEEELb0EEENS_8RightPadIiiLb0EEENS_11PassThroughIiEENS_7UnMergeINS6_IJiiiEEELb0EEESG_SG_SG_SE_SG_EEENS6_IJNS_8SequenceIJLi0EEEENSL_IJLi1EEEENSL_", "convolution", "none", true},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"ampere_gcgemm_64x64_nt", "gemm", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"ampere_sgemm_128x128_tn", "gemm", "none", false},  // sampled_rank-0.json.gz
    {"ampere_sgemm_32x32_sliced1x4_tn", "gemm", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"batched_transpose_16x32_half", "elementwise", "none", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"cask_cudnn_infer::computeBOffsetsKernel(cask_cudnn_infer::ComputeBOffsetsParams)", "convolution", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"cask_cudnn_train::computeWgradSplitKOffsetsKernel(cask_cudnn_train::ComputeSplitKOffsetsParams)", "convolution", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", "convolution", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", "convolution", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"cudnn_train_volta_scudnn_128x128_stridedB_splitK_interior_nn_v1", "convolution", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"cudnn_infer_volta_scudnn_128x64_3dconv_fprop_medium_nn_v1", "convolution", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"igemm_bwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x1x2_1x4x1x64_mh_gkgs", "convolution", "none", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt256x64x8_wt64x16x4_ws1x1_wr2x2_ta1x1x8x1_1x8x1x32_tb1x1x2x1_1x8x1x32_me", "convolution", "none", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"igemm_wrw_gtcx3_nhwc_bf16_bx0_ex1_bt64x64x64_wt32x32x8_ws1x1_wr1x1_ta1x4x1x4_1x16x1x16_tb1x4x1x4_1x16x1x16_gkgs", "convolution", "none", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", "communication", "other", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "communication", "all_reduce", false},  // df_index_resolver.json.gz
    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "communication", "all_reduce", false},  // nccl_data.json.gz
    {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "communication", "broadcast", false},  // nccl_data.json.gz
    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "communication", "send_recv", false},  // sampled_rank-0.json.gz
    {"sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x128x32_stage5_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer", "convolution", "none", false},  // nccl_data.json.gz
    {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize256x64x32_stage3_warpsize4x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer", "convolution", "none", false},  // nccl_data.json.gz
    {"sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_split_k_kernel_cudnn_train", "convolution", "none", false},  // nccl_data.json.gz
    {"split_embedding_backward_codegen_adagrad_unweighted_find_long_segments(at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at:", "other", "none", true},  // worker0_step_12.1694128201545.pt.trace.j
    {"void split_embedding_codegen_forward_unweighted_kernel<float, float, float, false, long, 1ul, 8ul>(at::GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::Gene", "other", "none", true},  // worker0_step_12.1694128201545.pt.trace.j
    {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemv", "gemm", "none", true},  // sampled_rank-0.json.gz
    {"transpose_CNHW2NCHW_V2_2D_WG_off64", "elementwise", "none", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#1}>(int, at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda(", "elementwise", "none", true},  // sampled_rank-0.json.gz
    {"void (anonymous namespace)::indexing_backward_kernel<float, 4>(long*, long*, float*, float*, long, long, long, long, bool)", "elementwise", "none", false},  // worker0_step_12.1694128201545.pt.trace.j
    {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, float const*, int, int, int, bool const*, int, bool)", "normalization", "none", false},  // nccl_data.json.gz
    {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)", "elementwise", "none", false},  // df_index_resolver.json.gz
    {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*, float const*, float const*, float const*, float*, float*)", "normalization", "none", false},  // sampled_rank-0.json.gz
    {"void at::native::(anonymous namespace)::LayerNormForwardCUDAKernel<float, float>(long, float const*, float const*, float const*, float const*, float const*, float*)", "normalization", "none", false},  // sampled_rank-0.json.gz
    {"void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float, float>(long, float, float const*, float*, float*)", "normalization", "none", false},  // sampled_rank-0.json.gz
    {"void at::native::(anonymous namespace)::adaptive_average_pool<float>(float const*, float*, int, int, int, int, long, long, long)", "reduction", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*, long, long, long, int, int, int, int, int, int, int, int, int, int, float*, long*)", "reduction", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, at::native::templates::cuda::uniform_and_transform<float, float, 4ul, at::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(fl", "elementwise", "none", true},  // benchmark_result_2869224_1695835535_trac
    {"void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, bool>(at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)", "elementwise", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"void at::native::(anonymous namespace)::indexSelectLargeIndex<long, long, unsigned int, 1, 1, -2, true>(at::cuda::detail::TensorInfo<long, unsigned int>, at::cuda::detail::TensorInfo<long, unsigned int>, at::cuda::detail::TensorInfo<long, unsigned int>, int, int, unsigned int, unsigned int, long)", "elementwise", "none", false},  // sampled_rank-0.json.gz
    {"void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)", "normalization", "none", false},  // sampled_rank-0.json.gz
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)", "elementwise", "none", false},  // mi250_minitoy_train_ROCm6_2_kineto.json.
    {"void at::native::(anonymous namespace)::unrolled_elementwise_kernel_for_multi_outputs<3, at::native::(anonymous namespace)::batch_norm_update_stats_and_invert(at::Tensor const&, at::Tensor const&, at::Tensor const&, at::Tensor const&, double, double, long)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(float, float, c10::BFloat16, c10::BFloat16)#1}, std::array<char*, ", "normalization", "none", true},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)", "normalization", "none", false},  // sampled_rank-0.json.gz
    {"void at::native::_scatter_gather_elementwise_kernel<128, 4, at::native::_cuda_scatter_gather_internal_kernel<true, float>::operator()<at::native::ReduceAdd>(at::TensorIterator&, long, long, long, at::native::ReduceAdd const&)::{lambda(int)#1}>(int, at::native::_cuda_scatter_gather_internal_kernel<true, float>::operator()<at::native::ReduceAdd>(at::TensorIterator&, long, long, long, at::native::Red", "elementwise", "none", true},  // sampled_rank-0.json.gz
    {"void at::native::batch_norm_backward_kernel<c10::BFloat16, c10::BFloat16, float, int>(at::GenericPackedTensorAccessor<c10::BFloat16 const, 3ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<c10::BFloat16 const, 3ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<c10::BFloat16, 3ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<c10::BFloat16, 1ul, at::Defaul", "normalization", "none", true},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"void at::native::batch_norm_collect_statistics_kernel<at::native::Var, c10::BFloat16, c10::BFloat16, float, int>(at::GenericPackedTensorAccessor<c10::BFloat16 const, 3ul, at::RestrictPtrTraits, int>, float, float, at::GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, int>)", "normalization", "none", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"void at::native::batch_norm_transform_input_kernel<c10::BFloat16, c10::BFloat16, float, true, int>(at::GenericPackedTensorAccessor<c10::BFloat16 const, 3ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<c10::BFloat16, 3ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<std::conditional<true, float, c10::BFloat16>::type, 1ul, at::RestrictPtrTraits, int>, at::GenericPack", "normalization", "none", true},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1})", "elementwise", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"void at::native::elementwise_kernel_manual_unroll<128, 8, at::native::gpu_kernel_impl_nocast<at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16, c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&):", "elementwise", "none", true},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_put_kernel_impl<at::native::OpaqueType<4> >(at::TensorIterator&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char*, long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_put_kernel_impl<at::native::OpaqueType<4> >(at::TensorIterator&, c10::ArrayRef", "elementwise", "none", true},  // sampled_rank-0.json.gz
    {"void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, at::native::MaxOps<float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MaxOps<float>, unsigned int, float, 4>)", "reduction", "none", false},  // sampled_rank-0.json.gz
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::WelfordOps<float, float, int, float, thrust::pair<float, float> >, unsigned int, float, 2> >(at::native::ReduceOp<float, at::native::WelfordOps<float, float, int, float, thrust::pair<float, float> >, unsigned int, float, 2>)", "reduction", "none", false},  // df_index_resolver.json.gz
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::NormTwoOps<float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::NormTwoOps<float, float, float>, unsigned int, float, 4>)", "reduction", "none", false},  // sampled_rank-0.json.gz
    {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, at::native::d", "elementwise", "none", true},  // sampled_rank-0.json.gz
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)", "elementwise", "none", false},  // mi250_minitoy_train_ROCm6_2_kineto.json.
    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)", "elementwise", "none", false},  // mi250_minitoy_train_ROCm6_2_kineto.json.
    {"void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, ", "elementwise", "none", true},  // df_index_resolver.json.gz
    {"void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)", "elementwise", "none", false},  // mi300x_resnet_act_checkpoint_rank0of8.js
    {"void at_cuda_detail::cub::DeviceRadixSortSingleTileKernel<at_cuda_detail::cub::DeviceRadixSortPolicy<long, at::cuda::cub::detail::OpaqueType<8>, int>::Policy800, false, long, at::cuda::cub::detail::OpaqueType<8>, int>(long const*, long*, at::cuda::cub::detail::OpaqueType<8> const*, at::cuda::cub::detail::OpaqueType<8>*, int, int, int)", "other", "none", false},  // worker0_step_12.1694128201545.pt.trace.j
    {"void cub::DeviceScanKernel<cub::DeviceScanPolicy<int>::Policy600, int*, int*, cub::ScanTileState<int, true>, cub::Sum, cub::NullType, int>(int*, int*, cub::ScanTileState<int, true>, int, cub::Sum, cub::NullType, int)", "reduction", "none", false},  // worker0_step_12.1694128201545.pt.trace.j
    {"void cub::DeviceReduceByKeyKernel<cub::DispatchReduceByKey<long*, long*, cub::ConstantInputIterator<int, int>, int*, int*, cub::Equality, cub::Sum, int>::PtxReduceByKeyPolicy, long*, long*, cub::ConstantInputIterator<int, int>, int*, int*, cub::ReduceByKeyScanTileState<int, int, true>, cub::Equality, cub::Sum, int>(long*, long*, cub::ConstantInputIterator<int, int>, int*, int*, cub::ReduceByKeySca", "reduction", "none", true},  // sampled_rank-0.json.gz
    {"void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, long, int, int, int>(int*, int*, int*, int const*, long*, long const*, int*, int const*, int, int, int)", "other", "none", false},  // sampled_rank-0.json.gz
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, float const*, float const*, float*, void*, long, float*, int*)", "gemm", "none", false},  // nccl_data.json.gz
    {"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>(float, float, float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float*, float*, float const*, float const*, float)", "normalization", "none", false},  // nccl_data.json.gz
    {"void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<float>)", "normalization", "none", false},  // nccl_data.json.gz
    {"void cudnn::cnn::reduce_wgrad_nchw_helper<float, float>(void*, void const*, float, int, int)", "convolution", "none", false},  // nccl_data.json.gz
    {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, int, float, int, int, int)", "convolution", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)", "elementwise", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"void cudnn::ops::scalePackedTensor_kernel<float, float>(long, float*, float)", "elementwise", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::WinogradDataParams<float, float>)", "convolution", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"void cudnn::winograd::generateWinogradTilesKernel<0, float, float>(cudnn::winograd::GenerateWinogradTilesParams<float, float>)", "convolution", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)", "gemm", "none", false},  // nccl_data.json.gz
    {"void cutlass::Kernel<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::Params)", "gemm", "none", false},  // nccl_data.json.gz
    {"void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_128x128_16x4_nhwc_unity_stride_align4>(cutlass_tensorop_s1688dgrad_optimized_tf32_128x128_16x4_nhwc_unity_stride_align4::Params)", "convolution", "none", false},  // nccl_data.json.gz
    {"void cutlass_cudnn_train::Kernel<cutlass_tensorop_s1688wgrad_optimized_tf32_256x128_16x3_nhwc_align4>(cutlass_tensorop_s1688wgrad_optimized_tf32_256x128_16x3_nhwc_align4::Params)", "convolution", "none", false},  // nccl_data.json.gz
    {"void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<cutlass_cudnn_train::MatrixShape<4, 128>, cutlass_cudnn_train::epilogue::thread::LinearCombination<float, 4, float, float, (cutlass_cudnn_train::epilogue::thread::ScaleType::Kind)0, (cutlass_cudnn_train::FloatRoundStyle)2>, cutlass_cudnn_train::reduction::thread::ReduceAdd<float, float, 4>, 4> >(cutlass_cudnn_tra", "convolution", "none", true},  // nccl_data.json.gz
    {"void dense_embedding_codegen_forward_unweighted_kernel<float, float, float, long, 1ul, 8ul>(at::GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, fbgemm_gpu::FixedDivisor, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits,", "other", "none", true},  // worker0_step_12.1694128201545.pt.trace.j
    {"void dot_kernel<float, 128, 0, cublasDotParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> > >(cublasDotParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >)", "reduction", "none", false},  // worker0_step_12.1694128201545.pt.trace.j
    {"void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, cublasLtEpilogue_t, int, float*, long, void*, long, long, long, float*, long, int*)", "gemm", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)", "elementwise", "none", false},  // sampled_rank-0.json.gz
    {"void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>(float const*, float const*, int, int, unsigned char*, bool)", "elementwise", "none", false},  // sampled_rank-0.json.gz
    {"void fbgemm_gpu::(anonymous namespace)::_FP8rowwise_to_float_cuda_kernel<float>(unsigned char const*, int, int, float*, bool)", "elementwise", "none", false},  // sampled_rank-0.json.gz
    {"void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int, int, int, int, int, int, int, int, int, cudnn::reduced_divisor, bool, int2, int, int)", "convolution", "none", false},  // benchmark_result_2869224_1695835535_trac
    {"void gemmSN_NN_kernel<float, 256, 4, 2, 8, 4, 4, false, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >(cublasGemmSmallNParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)", "gemm", "none", false},  // worker0_step_12.1694128201545.pt.trace.j
    {"void gemmk1_kernel<float, 256, 5, false, false, false, false, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float, true, true>(cublasGemmk1Params<float, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float, biasType<cublasGemvTensorStr", "gemm", "none", true},  // sampled_rank-0.json.gz
    {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 2, 2, false, false, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>, f", "gemm", "none", true},  // step_based_trace_2543932.json.gz
    {"void gemvNSP_kernel<float, float, float, float, 1, 16, 4, 1024, false, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)", "gemm", "none", false},  // worker0_step_12.1694128201545.pt.trace.j
    {"void magma_sgemmEx_kernel<float, float, float, true, false, 6, 4, 6, 3, 4>(int, int, int, Tensor, int, Tensor, int, Tensor, int, Tensor, int, int, int, float const*, float const*, float, float, int, cublasLtEpilogue_t, int, void const*, long)", "gemm", "none", false},  // df_index_resolver.json.gz
    {"void permute_pooled_embs_kernel<float>(float const*, long const*, long const*, long const*, float*, long, long, long)", "elementwise", "none", false},  // sampled_rank-0.json.gz
    {"void reduce_1Block_kernel<float, 128, 7, cublasGemvTensorStridedBatched<float>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >(float const*, float, cublasGemvTensorStridedBatched<float>, int, float const*, float, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, cublasPointerMode_t, cublasLtEpilogue_t, cublasGemvTensorStridedB", "gemm", "none", true},  // worker0_step_12.1694128201545.pt.trace.j
    {"void scal_kernel<float, float, 1, false, 6, 5, 5, 3>(cublasTransposeParams<float>, float const*, float*, float const*)", "elementwise", "none", false},  // sampled_rank-0.json.gz
    {"void sgemm_largek_lds64<true, true, 6, 3, 4, 5, 2, 66>(float*, float const*, float const*, int, int, int, int, int, int, float const*, float const*, float, float, int, int, int*, int*)", "gemm", "none", false},  // sampled_rank-0.json.gz
    {"void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, float const*, float const*, float*, void*, long, float*, int*)", "gemm", "none", false},  // df_index_resolver.json.gz
    {"void wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float const*, int, float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)", "convolution", "none", false},  // rank-0.Apr_03_18_51_38.1102.pt.trace.jso
    {"volta_sgemm_128x64_nn", "gemm", "none", false},  // df_index_resolver.json.gz
    {"volta_sgemm_64x32_sliced1x4_tn", "gemm", "none", false},  // df_index_resolver.json.gz
    {"void bounds_check_indices_kernel<long>(at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, long, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, fbgemm_gpu::FixedDivisor)", "other", "none", false},  // worker0_step_12.1694128201545.pt.trace.j
};

TEST(ClassifyTest, RealKernelNames) {
    auto rules = bundled();
    ASSERT_GT(rules.size(), 10u);
    expectCases(rules, kRealNames, std::size(kRealNames));
}

// Names of kernels from libraries these traces do not cover (Hopper/Blackwell cuBLAS, FlashAttention, CK,
// hipBLASLt, RCCL, Triton/Inductor, ROCclr blits, MIOpen), written the way those libraries name them.
const Case kSyntheticNames[] = {
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "gemm", "none", false},
    {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTT", "gemm", "none", false},
    {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>>>(T1::Params)", "gemm", "none", false},
    {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", "gemm", "none", false},
    {"ampere_sgemm_64x32_sliced1x4_nn", "gemm", "none", false},
    {"void gemmSN_TN_kernel<float, 128, 16, 2, 4, 4, 4, true>()", "gemm", "none", false},
    {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>()", "gemm", "none", false},
    {"void cublasLt::epilogue::impl::globalKernel<8, 32, float, float, float, true>()", "gemm", "none", false},
    {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, false>(Flash_fwd_params)", "attention", "none", false},
    {"void flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::half_t>>(Flash_bwd_params)", "attention", "none", false},
    {"void pytorch_flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<64, 64, 256, 4>>()", "attention", "none", false},
    {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)", "attention", "none", false},
    {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0", "attention", "none", false},
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication", "all_reduce", false},
    {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication", "all_gather", false},
    {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication", "reduce_scatter", false},
    {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "communication", "send_recv", false},
    {"ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication", "broadcast", false},
    {"ncclDevKernel_Reduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication", "reduce", false},
    {"ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "communication", "all_gather", false},
    {"ncclKernel_ReduceScatter_RING_LL_Sum_half(ncclDevComm*, unsigned long, ncclWork*)", "communication", "reduce_scatter", false},
    {"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", "communication", "other", false},
    {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)", "communication", "all_reduce", false},
    {"Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASAE01_ASCE01_ASEM1", "gemm", "none", false},
    {"Custom_Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_CMS_SN_LDSB0", "gemm", "none", false},
    {"void wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 1>(int, int, int, __hip_bfloat16 const*)", "gemm", "none", false},
    {"void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::tensor_layout::gemm::RowMajor>>()", "gemm", "none", false},
    {"_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_28GridwiseGemm_xdl_cshuffle_v3INS_13tensor_layout4gemm8RowMajorE", "gemm", "none", false},
    {"void ck_tile::kentry<256, 1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<>>>()", "attention", "none", false},
    {"void ck_tile::kentry<256, 1, ck_tile::GemmKernel<ck_tile::GemmPipelineAgBgCrCompV3<>>>()", "gemm", "none", false},
    {"__amd_rocclr_copyBuffer", "memcpy", "none", false},
    {"__amd_rocclr_copyBufferAligned", "memcpy", "none", false},
    {"__amd_rocclr_fillBufferAligned", "memset", "none", false},
    {"MIOpenBatchNormFwdTrainSpatial", "normalization", "none", false},
    {"miopenSp3AsmConv_v30_3_1_gfx9_fp32_f2x3_stride1", "convolution", "none", false},
    {"MIOpenConvUni", "convolution", "none", false},
    {"naive_conv_fwd_nchw_float_double_float", "convolution", "none", false},
    {"triton_poi_fused_add_mul_0", "elementwise", "none", false},
    {"triton_red_fused_sum_1", "reduction", "none", false},
    {"triton_per_fused__softmax_2", "normalization", "none", false},
    {"triton_per_fused_native_layer_norm_3", "normalization", "none", false},
    {"triton_red_fused__to_copy_add_mean_pow_rsqrt_8", "reduction", "none", false},
    {"triton_tem_fused_mm_4", "gemm", "none", false},
    {"triton_tem_fused_addmm_relu_5", "gemm", "none", false},
    {"triton_tem_fused_convolution_6", "convolution", "none", false},
    {"triton_tem_fused_flex_attention_7", "attention", "none", false},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)", "elementwise", "none", false},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_", "elementwise", "none", false},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIfffEEjfLi4EEEEEvT1_", "reduction", "none", false},
    {"void at::native::(anonymous namespace)::rms_norm_kernel<float>(float*, float const*, int)", "normalization", "none", false},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)", "normalization", "none", false},
    {"void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, int, float const*, int, float*)", "convolution", "none", false},
    {"void fused_moe_kernel(bf16*, bf16*)", "gemm", "none", false},
};

TEST(ClassifyTest, SyntheticLibraryNames) {
    auto rules = bundled();
    expectCases(rules, kSyntheticNames, std::size(kSyntheticNames));
}

TEST(ClassifyTest, MemcpyAndMemsetByKindWithDirection) {
    auto rules = bundled();
    auto c = rules.classify("Memcpy DtoD (Device -> Device)", EventKind::Memcpy);
    EXPECT_EQ(c.category, KernelCategory::Memcpy);
    EXPECT_EQ(c.rule, -1);
    EXPECT_EQ(rules.classify("Memset (Device)", EventKind::Memset).category, KernelCategory::Memset);

    // Per-row classification fills directions for memcpy rows and rocclr blits.
    StringPool pool;
    GpuTable g;
    const char* names[] = {"Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Pageable)", "Memset (Device)",
                           "__amd_rocclr_copyBuffer", "volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn",
                           "some_kernel_nobody_knows"};
    EventKind kinds[] = {EventKind::Memcpy, EventKind::Memcpy, EventKind::Memset, EventKind::Kernel,
                         EventKind::Kernel, EventKind::Kernel, EventKind::Kernel};
    for (size_t i = 0; i < std::size(names); ++i) {
        g.ts.push_back(static_cast<TimeNs>(i));
        g.name.push_back(pool.intern(names[i]));
        g.kind.push_back(kinds[i]);
    }
    classifyGpuTable(rules, pool, g);
    ASSERT_EQ(g.category.size(), std::size(names));
    EXPECT_EQ(g.category[0], KernelCategory::Memcpy);
    EXPECT_EQ(g.copyDirection[0], CopyDirection::HtoD);
    EXPECT_EQ(g.copyDirection[1], CopyDirection::DtoH);
    EXPECT_EQ(g.category[2], KernelCategory::Memset);
    EXPECT_EQ(g.copyDirection[2], CopyDirection::None);
    EXPECT_EQ(g.category[3], KernelCategory::Memcpy);
    EXPECT_EQ(g.copyDirection[3], CopyDirection::Unknown);
    EXPECT_EQ(g.category[4], KernelCategory::Gemm);
    EXPECT_EQ(g.category[5], KernelCategory::Gemm);
    EXPECT_EQ(g.category[6], KernelCategory::Other);
    EXPECT_EQ(g.copyDirection[4], CopyDirection::None);
}

TEST(ClassifyRulesTest, PatternsWithRegexSyntaxMatchLikeRegexSearch) {
    auto r = ClassificationRules::fromYamlText(R"(rules:
  - {name: digits, pattern: 'foo\d+bar', category: gemm}
  - {name: anchored-group, pattern: '^(ab|cd)ef', category: reduction}
  - {name: optional, pattern: 'colou?r', category: elementwise}
  - {name: escaped, pattern: 'Memcpy \(HtoD', category: memcpy}
  - {name: icase, pattern: 'SOFTMAX', category: normalization, icase: true}
  - {name: class-only, pattern: '^[xy]+$', category: attention}
)",
                                               "inline");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    auto cat = [&](const char* n) { return toString(r->classify(n, EventKind::Kernel).category); };
    EXPECT_EQ(cat("xfoo12barx"), "gemm");
    EXPECT_EQ(cat("foobar"), "other");
    EXPECT_EQ(cat("cdef"), "reduction");
    EXPECT_EQ(cat("xcdef"), "other");
    EXPECT_EQ(cat("color"), "elementwise");
    EXPECT_EQ(cat("my_colour"), "elementwise");
    EXPECT_EQ(cat("colouur"), "other");
    EXPECT_EQ(cat("Memcpy (HtoD)"), "memcpy");
    EXPECT_EQ(cat("Memcpy HtoD"), "other");
    EXPECT_EQ(cat("fused_SoftMax_fwd"), "normalization");
    EXPECT_EQ(cat("xyyx"), "attention");
    EXPECT_EQ(cat("xyz"), "other");
    EXPECT_EQ(r->classify("xfoo12barx", EventKind::Kernel).rule, 0);
    EXPECT_EQ(r->rules()[0].line, 2);
    EXPECT_EQ(r->rules()[0].file, "inline");
}

TEST(ClassifyRulesTest, LongNamesAreSafeEvenWithBacktrackingPatterns) {
    auto r = ClassificationRules::fromYamlText("rules:\n  - {name: greedy, pattern: 'x.*gemm', category: gemm}\n", "inline");
    ASSERT_TRUE(r.ok());
    std::string name(200000, 'x');
    EXPECT_EQ(r->classify(name, EventKind::Kernel).category, KernelCategory::Other);
    name += "gemm";
    EXPECT_EQ(r->classify(name, EventKind::Kernel).category, KernelCategory::Gemm);
    // The bundled rules on a long real-looking name.
    auto rules = bundled();
    std::string longName = "void at::native::vectorized_elementwise_kernel<4, " + std::string(20000, 'a') + ">";
    EXPECT_EQ(rules.classify(longName, EventKind::Kernel).category, KernelCategory::Elementwise);
}

TEST(ClassifyRulesTest, ErrorsNameFileAndLine) {
    auto badRegex = ClassificationRules::fromYamlText(
        "rules:\n  - name: ok\n    pattern: gemm\n    category: gemm\n  - name: broken\n    pattern: 'foo(bar'\n"
        "    category: gemm\n",
        "my.yaml");
    ASSERT_FALSE(badRegex.ok());
    EXPECT_EQ(badRegex.error().where.file, "my.yaml");
    EXPECT_EQ(badRegex.error().where.line, 5);
    EXPECT_NE(badRegex.error().message.find("broken"), std::string::npos);
    EXPECT_NE(badRegex.error().toString().find("my.yaml"), std::string::npos);

    auto badYaml = ClassificationRules::fromYamlText("rules:\n  - name: x\n    pattern: [unclosed\n", "y.yaml");
    ASSERT_FALSE(badYaml.ok());
    EXPECT_EQ(badYaml.error().where.file, "y.yaml");
    EXPECT_GT(badYaml.error().where.line, 0);

    auto badCategory = ClassificationRules::fromYamlText(
        "rules:\n  - name: x\n    pattern: foo\n    category: gemmm\n", "c.yaml");
    ASSERT_FALSE(badCategory.ok());
    EXPECT_EQ(badCategory.error().where.line, 4);
    EXPECT_NE(badCategory.error().message.find("gemmm"), std::string::npos);

    auto typo = ClassificationRules::fromYamlText("rules:\n  - {name: x, pattern: foo, categroy: gemm}\n", "t.yaml");
    ASSERT_FALSE(typo.ok());
    EXPECT_NE(typo.error().message.find("categroy"), std::string::npos);

    auto missing = ClassificationRules::fromYamlText("rules:\n  - {name: x, category: gemm}\n", "m.yaml");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().where.line, 2);

    auto collectiveOnGemm = ClassificationRules::fromYamlText(
        "rules:\n  - {name: x, pattern: foo, category: gemm, collective: all_reduce}\n", "g.yaml");
    EXPECT_FALSE(collectiveOnGemm.ok());

    auto notAList = ClassificationRules::fromYamlText("rules: 3\n", "n.yaml");
    EXPECT_FALSE(notAList.ok());

    auto empty = ClassificationRules::fromYamlText("", "e.yaml");
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(empty->size(), 0u);

    auto missingFile = ClassificationRules::fromFile("/nonexistent/strobe/rules.yaml");
    ASSERT_FALSE(missingFile.ok());
    EXPECT_EQ(missingFile.error().where.file, "/nonexistent/strobe/rules.yaml");
}

TEST(ClassifyRulesTest, UserRulesComeFirst) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("strobe-classify-test-" + std::to_string(::getpid()));
    fs::create_directories(dir / "strobe");
    {
        std::ofstream out(dir / "strobe" / "classification.yaml");
        out << "rules:\n  - name: mine\n    pattern: volta_sgemm\n    category: other\n";
    }
    const char* old = std::getenv("XDG_CONFIG_HOME");
    std::string saved = old ? old : "";
    ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
    auto rules = ClassificationRules::loadDefault();
    ASSERT_TRUE(rules.ok()) << rules.error().toString();
    auto c = rules->classify("volta_sgemm_128x64_nn", EventKind::Kernel);
    EXPECT_EQ(c.category, KernelCategory::Other);
    EXPECT_EQ(c.rule, 0);
    EXPECT_EQ(rules->rules()[0].name, "mine");
    // Everything else still comes from the bundled rules.
    EXPECT_EQ(rules->classify("ampere_sgemm_128x64_nn", EventKind::Kernel).category, KernelCategory::Gemm);

    // A broken user file is an error naming it, not a silent fallback.
    {
        std::ofstream out(dir / "strobe" / "classification.yaml");
        out << "rules:\n  - name: mine\n    pattern: '(('\n    category: other\n";
    }
    auto broken = ClassificationRules::loadDefault();
    ASSERT_FALSE(broken.ok());
    EXPECT_NE(broken.error().where.file.find("classification.yaml"), std::string::npos);
    EXPECT_NE(broken.error().where.file.find(dir.string()), std::string::npos);

    if (old) ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    else ::unsetenv("XDG_CONFIG_HOME");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace strobe::core
