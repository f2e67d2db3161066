#pragma once
// Fixture: engine may include every lower core layer.
#include "core/io/error.h"
#include "core/merge/merge.h"
#include "core/model/dataset.h"
