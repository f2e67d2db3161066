// STUB — replaced by the analyses work.
#include "core/analysis/table.h"

namespace strobe::core {

int Table::columnIndex(const std::string& name) const {
    for (size_t i = 0; i < columns.size(); ++i)
        if (columns[i] == name) return static_cast<int>(i);
    return -1;
}
void Table::writeCsv(std::ostream&) const {}
void Table::writeJsonRows(std::ostream&) const {}

}  // namespace strobe::core
