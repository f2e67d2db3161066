#pragma once
// Fixture for cmake/CheckLayers.cmake: io may include io, not engine.
#include "core/io/error.h"
#include "core/engine/job_runner.h"
