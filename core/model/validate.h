#pragma once
// Structural checks of a RankData that did not come out of this process's own loader (the load cache, later
// other binary imports): every column of a table has the table's length, every row reference, track index and
// string id points inside its table or pool, every enum value is one this build knows, every interval is valid. After these hold, no consumer can read
// out of bounds, whatever the values are. O(rows), no allocation.

#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

// Ok, or an Error naming the table, column and row ("gpu.runtime row 17: 912 is not a slice (0..400)").
// The error has no file location: the caller knows which file the rank came from and adds it.
Status validateRankData(const RankData& rank);

}  // namespace strobe::core
