#pragma once
// Fixture: app may include plots, collectors and core.
#include "plots/plot.h"
#include "collectors/device_info.h"
#include "core/io/error.h"
