#pragma once
// What the torch profiler's hook did in a run (resources/python/strobe_torch.py): each process it profiled wrote
// <prefix>_clock_anchor.json beside <prefix>_trace.json with the mode that made the trace: "steps" (the first
// optimizer's steps drove the schedule), "time" (the --delay/--duration window, for scripts without an optimizer) or
// "explicit" (the script's own strobe_torch.profile()). The session records one line per trace in the manifest's
// messages, so a run says how it was captured.
#include <filesystem>
#include <string>
#include <vector>

namespace strobe::collectors {

// One line per <prefix>_clock_anchor.json in `torchDir` (sorted by file name), e.g. "rank0_trace.json: optimizer
// steps (SGD), ProfilerStep#0-#4 with wait 1, warm-up 1, active 3"; empty when the directory has none.
std::vector<std::string> torchProfileModes(const std::filesystem::path& torchDir);

}  // namespace strobe::collectors
