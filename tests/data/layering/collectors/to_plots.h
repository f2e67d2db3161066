#pragma once
// Fixture: collectors may include core, not plots.
#include "plots/plot.h"
