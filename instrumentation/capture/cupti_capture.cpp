// CUPTI Activity API capture (see cupti_capture.hpp). Records arrive in buffers that CUPTI
// hands back on its own thread; they are converted at once into Timeline events under a
// mutex, so the buffers can be freed and nothing is held in CUPTI's format.
#include "instrumentation/capture/cupti_capture.hpp"

#include <cupti.h>
#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>

namespace ps::trace {
namespace {

constexpr std::size_t kBufferBytes = 8u << 20;  // large enough that 0 records are dropped

struct Collector {
    std::mutex mutex;
    Timeline timeline;
    std::map<std::uint32_t, std::pair<std::int64_t, Event>> open_markers;  // NVTX start records by id
    bool active = false;
    std::size_t cdp_records = 0;
    std::string cdp_enable_result;  // what enabling CUPTI_ACTIVITY_KIND_CDP_KERNEL answered
};

Collector& collector() {
    static Collector c;
    return c;
}

const char* api_name(std::uint32_t cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) != CUPTI_SUCCESS || !name) return "cuda runtime";
    return name;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;
}

// What a host-launched kernel record and a device-launched (CDP) one share.
template <class KernelRecord>
Event kernel_event(Timeline& t, const KernelRecord& k) {
    Event e;
    e.kind = EventKind::Kernel;
    e.name = demangle(k.name ? k.name : "kernel");
    e.track = t.add_track(TrackKind::GpuStream, k.streamId, "stream " + std::to_string(k.streamId));
    e.start_ns = std::int64_t(k.start);
    e.end_ns = std::int64_t(k.end);
    e.correlation_id = k.correlationId;
    e.grid[0] = std::uint32_t(k.gridX), e.grid[1] = std::uint32_t(k.gridY), e.grid[2] = std::uint32_t(k.gridZ);
    e.block[0] = std::uint32_t(k.blockX), e.block[1] = std::uint32_t(k.blockY), e.block[2] = std::uint32_t(k.blockZ);
    return e;
}

void add_record(Collector& c, const CUpti_Activity* record) {
    Timeline& t = c.timeline;
    Event e;
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        e = kernel_event(t, *k);
        if (k->queued != CUPTI_TIMESTAMP_UNKNOWN) e.queued_ns = std::int64_t(k->queued);
        if (k->submitted != CUPTI_TIMESTAMP_UNKNOWN) e.submitted_ns = std::int64_t(k->submitted);
        e.graph_id = k->graphId;
        e.graph_node_id = k->graphNodeId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_CDP_KERNEL: {  // device-launched kernels, where the device reports them
        e = kernel_event(t, *reinterpret_cast<const CUpti_ActivityCdpKernel*>(record));
        e.device_launched = true;
        ++c.cdp_records;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        e.kind = EventKind::Memcpy;
        static const char* kinds[] = {"memcpy",      "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH",
                                      "memcpy AtoA", "memcpy AtoD", "memcpy DtoA", "memcpy DtoD", "memcpy HtoH"};
        e.name = m->copyKind < sizeof kinds / sizeof *kinds ? kinds[m->copyKind] : "memcpy";
        e.track = t.add_track(TrackKind::GpuStream, m->streamId, "stream " + std::to_string(m->streamId));
        e.start_ns = std::int64_t(m->start);
        e.end_ns = std::int64_t(m->end);
        e.correlation_id = m->correlationId;
        e.bytes = m->bytes;
        e.graph_id = m->graphId;
        e.graph_node_id = m->graphNodeId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        e.kind = EventKind::Memset;
        e.name = "memset";
        e.track = t.add_track(TrackKind::GpuStream, m->streamId, "stream " + std::to_string(m->streamId));
        e.start_ns = std::int64_t(m->start);
        e.end_ns = std::int64_t(m->end);
        e.correlation_id = m->correlationId;
        e.bytes = m->bytes;
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
        auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        e.kind = EventKind::RuntimeApi;
        e.name = api_name(a->cbid);
        e.track = t.add_track(TrackKind::HostThread, a->threadId, "CPU thread " + std::to_string(a->threadId));
        e.start_ns = std::int64_t(a->start);
        e.end_ns = std::int64_t(a->end);
        e.correlation_id = a->correlationId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
        e.kind = EventKind::Sync;
        static const char* types[] = {"sync", "event sync", "stream wait event", "stream sync", "context sync"};
        e.name = s->type < sizeof types / sizeof *types ? types[s->type] : "sync";
        e.track = t.add_track(TrackKind::Host, 1, "CUDA synchronisation");
        e.start_ns = std::int64_t(s->start);
        e.end_ns = std::int64_t(s->end);
        e.correlation_id = s->correlationId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
        if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
            Event start;
            start.kind = EventKind::Nvtx;
            start.name = m->name ? m->name : "range";
            const std::uint64_t thread = m->objectId.pt.threadId;
            start.track = t.add_track(TrackKind::Nvtx, thread, "NVTX " + std::to_string(thread));
            start.start_ns = std::int64_t(m->timestamp);
            c.open_markers[m->id] = {std::int64_t(m->timestamp), start};
        } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
            auto it = c.open_markers.find(m->id);
            if (it == c.open_markers.end()) return;
            e = it->second.second;
            e.end_ns = std::int64_t(m->timestamp);
            c.open_markers.erase(it);
            break;
        }
        return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
        e.kind = EventKind::Overhead;
        e.name = "CUPTI overhead";
        e.track = t.add_track(TrackKind::Host, 2, "CUPTI overhead");
        e.start_ns = std::int64_t(o->start);
        e.end_ns = std::int64_t(o->end);
        break;
    }
    default:
        return;
    }
    t.events.push_back(std::move(e));
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
    Collector& c = collector();
    {
        std::lock_guard lock(c.mutex);
        CUpti_Activity* record = nullptr;
        while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) add_record(c, record);
        std::size_t dropped = 0;
        if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS)
            c.timeline.dropped_records += dropped;
    }
    std::free(buffer);
}

constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_MARKER,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
};

std::string cupti_error(CUptiResult r, const char* what) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    return std::string(what) + ": " + (text ? text : "CUPTI error") + " (" + std::to_string(int(r)) + ")";
}

}  // namespace

std::string_view to_string(TraceLevel level) {
    switch (level) {
    case TraceLevel::Off:
        return "off";
    case TraceLevel::Light:
        return "light";
    case TraceLevel::Full:
        return "full";
    }
    return "off";
}

std::optional<TraceLevel> parse_trace_level(std::string_view text) {
    for (TraceLevel l : {TraceLevel::Off, TraceLevel::Light, TraceLevel::Full})
        if (text == to_string(l)) return l;
    return std::nullopt;
}

std::string prepare_nvtx_injection() {
    if (const char* set = std::getenv("NVTX_INJECTION64_PATH"); set && *set) return set;
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) || !info.dli_fname) return {};
    setenv("NVTX_INJECTION64_PATH", info.dli_fname, 1);
    return info.dli_fname;
}

std::int64_t cupti_now_ns() {
    std::uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return std::int64_t(t);
}

std::unique_ptr<CuptiSession> CuptiSession::start(std::string* error) {
    Collector& c = collector();
    {
        std::lock_guard lock(c.mutex);
        if (c.active) {
            if (error) *error = "a CUPTI session is already running in this process";
            return nullptr;
        }
        c.timeline = Timeline{};
        c.open_markers.clear();
    }
    if (auto r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS) {
        if (error) *error = cupti_error(r, "registering CUPTI buffers");
        return nullptr;
    }
    for (CUpti_ActivityKind kind : kKinds) {
        if (auto r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS) {
            for (CUpti_ActivityKind k : kKinds) cuptiActivityDisable(k);
            if (error) *error = cupti_error(r, "enabling CUPTI activity");
            return nullptr;
        }
    }
    cuptiActivityEnableLatencyTimestamps(1);
    // Device-launched kernels (CDP): CUPTI documents the kind as following the concurrent kernel
    // kind; asking for it directly says whether this device and driver can report them at all
    // (the H100 with CUPTI 13 answers CUPTI_ERROR_NOT_COMPATIBLE, gpu-facts.md).
    const CUptiResult cdp = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CDP_KERNEL);
    {
        const char* text = nullptr;
        cuptiGetResultString(cdp, &text);
        std::lock_guard lock(c.mutex);
        c.cdp_records = 0;
        c.cdp_enable_result = cdp == CUPTI_SUCCESS ? std::string() : text ? text : std::to_string(int(cdp));
    }
    std::unique_ptr<CuptiSession> session(new CuptiSession());
    session->m_active = true;
    std::lock_guard lock(c.mutex);
    c.active = true;
    return session;
}

Timeline CuptiSession::stop() {
    if (!m_active) return {};
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CDP_KERNEL);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    m_active = false;
    Collector& c = collector();
    std::lock_guard lock(c.mutex);
    c.active = false;
    Timeline out = std::move(c.timeline);
    if (c.cdp_records > 0)
        out.notes.push_back("CUPTI reported " + std::to_string(c.cdp_records) +
                            " device-launched kernels (CDP kernel records), drawn on their streams beside the "
                            "device-stamped levels");
    m_cdp_unsupported = c.cdp_enable_result;
    c.timeline = Timeline{};
    return out;
}

std::string device_launch_note(const std::string& cdp_unsupported) {
    return "CUPTI does not report device-launched kernels on this GPU and driver (enabling "
           "CUPTI_ACTIVITY_KIND_CDP_KERNEL answered " +
           cdp_unsupported +
           "): a tail-launched chain is one host-launched parent to CUPTI, and its levels come from the "
           "device's %globaltimer stamps";
}

CuptiSession::~CuptiSession() {
    if (m_active) stop();
}

}  // namespace ps::trace
