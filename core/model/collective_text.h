#pragma once
// The collective a CPU-side name speaks of: shared by the merge (ncclDevKernel_Generic's collective from its launching
// operator) and the collectives analysis (the collective an operator ran, e.g. SendRecv kernels of an all_to_all).

#include <string_view>

#include "core/model/types.h"

namespace strobe::core {

// "nccl:all_reduce", "c10d::allreduce_", "allreduce" (a "Collective name" arg), "nccl:_all_gather_base",
// "alltoall", case-insensitive; None if none.
Collective collectiveFromText(std::string_view text);

}  // namespace strobe::core
