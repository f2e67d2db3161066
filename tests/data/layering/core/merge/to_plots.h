#pragma once
// Fixture: merge must not include plots.
#include "plots/plot.h"
