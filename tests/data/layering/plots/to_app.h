#pragma once
// Fixture: plots may include core, not app.
#include "core/io/error.h"
#include "app/gui/main_window.h"
