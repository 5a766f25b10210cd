// NVTX ranges in PathScope's own domain, coloured by phase, so Nsight Systems (and later
// CUPTI) show allocate / upload / compute / download / validate around every run.
// Without a tool attached NVTX calls are cheap no-ops.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ps::nvtx {

enum class Phase : std::uint8_t { Allocate, Upload, Compute, Download, Validate, Level, Other };

const char* phase_name(Phase phase);
std::uint32_t phase_colour(Phase phase);  // ARGB

// RAII range in the "PathScope" domain.
class ScopedRange {
public:
    ScopedRange(Phase phase, const char* name);
    ScopedRange(Phase phase, const std::string& name) : ScopedRange(phase, name.c_str()) {}
    ~ScopedRange();
    ScopedRange(const ScopedRange&) = delete;
    ScopedRange& operator=(const ScopedRange&) = delete;
};

// Consecutive phases of one run: begin() ends the previous range and opens the next.
class PhaseSequence {
public:
    void begin(Phase phase, const char* name) {
        end();
        m_range.emplace(phase, name);
    }
    void end() { m_range.reset(); }

private:
    std::optional<ScopedRange> m_range;
};

}  // namespace ps::nvtx
