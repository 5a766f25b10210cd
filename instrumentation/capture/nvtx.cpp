// NVTX ranges through the header-only NVTX3 C API.
#include "instrumentation/capture/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>

namespace ps::nvtx {
namespace {

nvtxDomainHandle_t domain() {
    static nvtxDomainHandle_t handle = nvtxDomainCreateA("PathScope");
    return handle;
}

}  // namespace

const char* phase_name(Phase phase) {
    switch (phase) {
    case Phase::Allocate:
        return "allocate";
    case Phase::Upload:
        return "upload";
    case Phase::Compute:
        return "compute";
    case Phase::Download:
        return "download";
    case Phase::Validate:
        return "validate";
    case Phase::Level:
        return "level";
    case Phase::Other:
        break;
    }
    return "other";
}

std::uint32_t phase_colour(Phase phase) {
    switch (phase) {
    case Phase::Allocate:
        return 0xFF9E9E9Eu;
    case Phase::Upload:
        return 0xFF42A5F5u;
    case Phase::Compute:
        return 0xFF66BB6Au;
    case Phase::Download:
        return 0xFFAB47BCu;
    case Phase::Validate:
        return 0xFFFFCA28u;
    case Phase::Level:
        return 0xFF26A69Au;
    case Phase::Other:
        break;
    }
    return 0xFF78909Cu;
}

ScopedRange::ScopedRange(Phase phase, const char* name) {
    nvtxEventAttributes_t attr{};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.colorType = NVTX_COLOR_ARGB;
    attr.color = phase_colour(phase);
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = name;
    nvtxDomainRangePushEx(domain(), &attr);
}

ScopedRange::~ScopedRange() { nvtxDomainRangePop(domain()); }

}  // namespace ps::nvtx
