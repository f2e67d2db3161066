#pragma once
// A Kineto trace that merges several ranks into one file (TraceLens TraceFusion: every rank's events under its own
// pids, rank × 10^8 + the raw pid, rank 0 keeping its raw pids, and `rank` (with `pid_raw`) in the args of every
// metadata event) is split back into its ranks at load, before the merge links calls to kernels within a rank.

#include <memory>
#include <vector>

#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

// The ranks of a parsed, not yet merged, Kineto trace whose processes' metadata name two or more ranks
// (ProcessMeta::rank), in rank order; an empty list for any other trace (a plain file stays one rank, and `merged`
// is left as it was). Each row goes to the rank of its pid (the metadata's); a row on a pid no metadata places
// (TraceFusion's shared string pids, "Traces" and "") to the `rank` of its own args, else by the pid scheme
// (pid ÷ 10^8 for a numeric pid, when that rank exists), else to the lowest rank. Each rank gets its rows, the
// tracks, processes and threads they use (renumbered), the trace info, and the string pool, shared (`merged`'s
// pool is moved out: the ranks' pools view it); rank = the metadata's, rankSource = MergedTrace. The file's
// diagnostics and its other load statistics stay with the lowest rank; events and categories are counted per rank.
// An Error when a table's columns disagree in length (not a parser's output: the merge's columns are filled).
Result<std::vector<std::unique_ptr<RankData>>> splitMergedRanks(RankData& merged);

}  // namespace strobe::core
