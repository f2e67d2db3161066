#include "app/cli/command.h"

#include <algorithm>

namespace strobe::app {

namespace {
std::vector<CliCommand>& registry() {
    static std::vector<CliCommand> r;
    return r;
}
}  // namespace

void registerCommand(CliCommand c) {
    auto& r = registry();
    r.push_back(std::move(c));
    std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}

const std::vector<CliCommand>& commands() { return registry(); }

bool hasFlag(const std::vector<std::string>& args, const std::string& flag) {
    return std::find(args.begin(), args.end(), flag) != args.end();
}

}  // namespace strobe::app
