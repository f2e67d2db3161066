#pragma once
// Kineto (PyTorch profiler) JSON as a registered source format (id "kineto"), so that detection treats it like every
// other format. The run loader keeps its own fast path for Kineto (parallel parse, progress, the load cache); this
// entry's load() is the plain one (tests, tools that go through the registry).

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kKinetoFormat;

// Score of `head` as Kineto JSON: an object with "traceEvents" (and not a rocprofv3 "rocprofiler-sdk-tool" result),
// or a bare array of events; 0 otherwise (a JSON file no format claims still reaches Kineto's parser through the
// detection's fallback, see source_detect.h).
int sniffKineto(const SniffInput& in);

}  // namespace strobe::core
