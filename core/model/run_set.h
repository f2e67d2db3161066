#pragma once
// RunSet: one or more loaded runs, each with a label and its sweep point. Exploring one trace is a RunSet of one;
// comparing configurations is the same plot with several runs.

#include <map>
#include <string>
#include <vector>

#include "core/model/dataset.h"

namespace strobe::core {

struct RunEntry {
    std::string label;
    DatasetPtr dataset;
    // Sweep point (e.g. NCCL_NCHANNELS=16) in the text form the run manifest and the session file give. The
    // manifest's values are typed (int, float, string): a typed reading will be a core::ParamValue per axis, parsed
    // with that axis' ParamSpec (core/params), so this map keeps the text that coerceValue() reads.
    std::map<std::string, std::string> parameters;
};
using RunSet = std::vector<RunEntry>;

}  // namespace strobe::core
