// Linked into every Strobe executable of a sanitizer build (STROBE_SANITIZE): default runtime options that make
// any report fail the process, however it is started (ctest, a shell, a debugger). Environment variables
// (ASAN_OPTIONS, UBSAN_OPTIONS, LSAN_OPTIONS, TSAN_OPTIONS) still override these.
// The suppression files hold third-party frames only (Qt, fontconfig...): see their headers.

#ifndef STROBE_TSAN_SUPPRESSIONS
#define STROBE_TSAN_SUPPRESSIONS ""
#endif
#ifndef STROBE_LSAN_SUPPRESSIONS
#define STROBE_LSAN_SUPPRESSIONS ""
#endif

#define STROBE_SANITIZER_HOOK extern "C" __attribute__((visibility("default"), used))

STROBE_SANITIZER_HOOK const char* __asan_default_options() {
    return "halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:"
           "strict_init_order=1:detect_invalid_pointer_pairs=0:exitcode=1";
}

STROBE_SANITIZER_HOOK const char* __lsan_default_options() {
    return "suppressions=" STROBE_LSAN_SUPPRESSIONS ":print_suppressions=0";
}

STROBE_SANITIZER_HOOK const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

STROBE_SANITIZER_HOOK const char* __tsan_default_options() {
    return "halt_on_error=1:exitcode=66:second_deadlock_stack=1:print_suppressions=0:"
           "suppressions=" STROBE_TSAN_SUPPRESSIONS;
}
