#pragma once
// `nvidia-smi dmon` text: a '#' header naming the columns ("# gpu pwr gtemp mtemp sm mem ... mclk pclk"), a '#'
// units line, then one line per GPU per sample; the header repeats every few samples. `-o D`/`-o T`/`-o DT` add
// Date (YYYYMMDD) and Time (HH:MM:SS) columns. Values "-" are not available (skipped, counted).
//
// Rank: one rank holding every GPU's samples (device = the gpu/Idx column). Clock: with Date and Time, local wall
// time (ClockDomain::LocalWallTime, unanchored); with Time only, the time of day on 1970-01-01 (a warning says the
// date is unknown); without either, dmon writes no time at all: samples are numbered (a new sample starts when
// the GPU index does not increase) and placed 1 s apart — dmon's default interval; `-d N` cannot be recovered
// from the output — on ClockDomain::Relative, and a warning says so. Lines that are not dmon rows (as in a
// capture that holds other commands' output) are skipped and counted.

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kNvidiaSmiDmonFormat;  // id "nvidia-smi-dmon"

int sniffNvidiaSmiDmon(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseNvidiaSmiDmon(std::string_view text, const std::string& path,
                                                     const SourceLoadOptions& options);

}  // namespace strobe::core
