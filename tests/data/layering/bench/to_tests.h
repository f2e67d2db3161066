#pragma once
// Fixture: bench must not include tests/, also when written relative to the file.
#include "kineto_gen.h"
#include "../tests/plots/plot_test_data.h"
