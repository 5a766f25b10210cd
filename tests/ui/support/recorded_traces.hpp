// Traces recorded on an H100 (tests/data: bfs.gpu.shared and bfs.gpu.dp on an open 64 x 64
// grid, full tracing), read back with trace::read_csv for the timeline's view tests.
#pragma once

#include <QString>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "instrumentation/timeline/timeline.hpp"

namespace ps::test {

// Null, with the reason in `why`, when the file is missing or unreadable.
inline std::shared_ptr<const trace::Timeline> recordedTrace(const char* name, QString* why) {
    const auto path = std::filesystem::path(PATHSCOPE_SOURCE_DIR) / "tests" / "data" / name;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *why = QStringLiteral("no recorded trace at %1").arg(QString::fromStdString(path.string()));
        return nullptr;
    }
    std::string error;
    auto timeline = trace::read_csv(in, error);
    if (!timeline) {
        *why = QString::fromStdString(path.string() + ": " + error);
        return nullptr;
    }
    return std::make_shared<const trace::Timeline>(std::move(*timeline));
}

}  // namespace ps::test
