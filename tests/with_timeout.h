#pragma once
// Runs `f` on another thread and waits at most `limit`: a hang fails the test (and aborts, since the stuck thread
// cannot be joined) instead of blocking the whole CI run until ctest's own timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <utility>

namespace strobe::testing {

template <class F>
auto withTimeout(F&& f, std::chrono::seconds limit) {
    auto fut = std::async(std::launch::async, std::forward<F>(f));
    if (fut.wait_for(limit) != std::future_status::ready) {
        ADD_FAILURE() << "hang: no result after " << limit.count() << " s";
        std::abort();
    }
    return fut.get();
}

}  // namespace strobe::testing
