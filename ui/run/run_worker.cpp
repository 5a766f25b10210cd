// RunWorker (see run_worker.hpp): one thread takes jobs from a queue and runs each request
// through ps::run_variant. Its reports are posted back to the thread that owns the RunWorker
// and emitted there, so every receiver (direct connections and QSignalSpy included) sees them
// in the GUI thread, and outcomes of superseded jobs can be dropped at that point. Every job has
// its own cancel flag; submit() raises the flags of all earlier jobs so the variants' cancel
// polling ends them early: latest request wins.
#include "ui/run/run_worker.hpp"

#include "ui/common/async.hpp"

#include <QElapsedTimer>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "database/recorder.hpp"

namespace ps::ui {
namespace {

struct QueuedJob {
    quint64 id = 0;
    RunJob job;
    std::shared_ptr<std::atomic<bool>> cancel;
};

// Forwards the runner's per-repetition progress as a fraction of the whole job (at most every
// few frames' worth of time: thousands of tiny repetitions must not flood the event queue), and
// hands the other callbacks to the history recorder when the job stores its runs.
class JobObserver final : public RunObserver {
public:
    JobObserver(RunWorker* worker, quint64 job, db::HistoryRecorder* recorder)
        : m_worker(worker), m_job(job), m_recorder(recorder) {
        m_sinceReport.start();
    }

    void setRequest(std::size_t index, std::size_t count, QString text) {
        m_index = index;
        m_count = count;
        m_text = std::move(text);
        report(0.0);
    }

    void on_started(const RunRequest& request, const VariantInfo& info) override {
        if (m_recorder) m_recorder->on_started(request, info);
    }
    void on_sample(int repetition, const PhaseTimes& phases, const RunResult& result) override {
        if (m_recorder) m_recorder->on_sample(repetition, phases, result);
    }
    void on_finished(const RunRequest& request, const RunReport& report) override {
        if (m_recorder) m_recorder->on_finished(request, report);
    }
    void on_progress(double fraction) override {
        if (fraction >= 1.0 || m_sinceReport.elapsed() >= kReportMs) report(fraction);
    }

private:
    static constexpr qint64 kReportMs = 30;

    void report(double fraction) {
        m_sinceReport.restart();
        const double whole = (double(m_index) + fraction) / double(std::max<std::size_t>(m_count, 1));
        QMetaObject::invokeMethod(
            m_worker,
            [worker = m_worker, job = m_job, whole, text = m_text] {
                if (job == worker->currentJob()) emit worker->progress(job, whole, text);
            },
            Qt::QueuedConnection);
    }

    RunWorker* m_worker;
    quint64 m_job;
    db::HistoryRecorder* m_recorder;
    std::size_t m_index = 0, m_count = 1;
    QString m_text;
    QElapsedTimer m_sinceReport;
};

}  // namespace

struct RunWorker::Private {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<QueuedJob> queue;
    std::shared_ptr<std::atomic<bool>> runningCancel;  // null while idle
    bool stopping = false;
    std::unique_ptr<QThread> thread;

    // Touched by the worker thread only: a History connection must stay in the thread that
    // opened it. Kept open between jobs while the path stays the same.
    std::optional<db::History> history;
    QString historyPath;
    QString historyError;

    void cancelAllLocked() {
        if (runningCancel) runningCancel->store(true);
        for (auto& queued : queue) queued.cancel->store(true);
    }

    db::History* openHistory(const QString& path) {
        // A failed open is retried on the next job: the user may have fixed the file meanwhile.
        if (path != historyPath || !history) {
            history.reset();
            historyError.clear();
            historyPath = path;
            auto opened = db::History::open(path.toStdString());
            if (opened)
                history.emplace(std::move(opened).value());
            else
                historyError = QString::fromStdString(opened.error().message);
        }
        return history ? &*history : nullptr;
    }
};

RunWorker::RunWorker(QObject* parent) : QObject(parent), d(std::make_unique<Private>()) {
    qRegisterMetaType<ps::ui::RunOutcomePtr>("ps::ui::RunOutcomePtr");
    d->thread.reset(QThread::create([this] { loop(); }));
    d->thread->setObjectName(QStringLiteral("PathScope runs"));
    d->thread->start();
}

RunWorker::~RunWorker() {
    {
        std::lock_guard lock(d->mutex);
        d->stopping = true;
        d->cancelAllLocked();
    }
    d->wake.notify_all();
    d->thread->wait();
}

quint64 RunWorker::submit(RunJob job) {
    quint64 id = 0;
    {
        std::lock_guard lock(d->mutex);
        d->cancelAllLocked();
        id = ++m_latest;
        d->queue.push_back({id, std::move(job), std::make_shared<std::atomic<bool>>(false)});
    }
    d->wake.notify_all();
    return id;
}

void RunWorker::cancel() {
    std::lock_guard lock(d->mutex);
    d->cancelAllLocked();
}

bool RunWorker::busy() const {
    std::lock_guard lock(d->mutex);
    return d->runningCancel != nullptr || !d->queue.empty();
}

void RunWorker::loop() {
    for (;;) {
        QueuedJob next;
        {
            std::unique_lock lock(d->mutex);
            d->wake.wait(lock, [&] { return d->stopping || !d->queue.empty(); });
            if (d->stopping) return;
            next = std::move(d->queue.front());
            d->queue.pop_front();
            d->runningCancel = next.cancel;
        }
        bool cancelled = false;
        try {
            cancelled = runJob(next.id, next.job, *next.cancel);
        } catch (...) {
            // An exception leaving this thread would end the program: the job fails instead,
            // with the reason shown like any failed run's.
            auto outcome = std::make_shared<RunOutcome>();
            if (!next.job.requests.empty()) outcome->request = next.job.requests.front();
            outcome->request.context.cancel = nullptr;
            outcome->report.info.id = outcome->request.variant_id;
            outcome->report.result = failed_run(describeException(std::current_exception()).toStdString());
            QMetaObject::invokeMethod(
                this,
                [this, id = next.id, ready = RunOutcomePtr(std::move(outcome))] {
                    if (id == m_latest.load()) emit outcomeReady(id, ready);
                },
                Qt::QueuedConnection);
        }
        {
            std::lock_guard lock(d->mutex);
            d->runningCancel.reset();
        }
        QMetaObject::invokeMethod(
            this, [this, id = next.id, cancelled] { emit jobFinished(id, cancelled); }, Qt::QueuedConnection);
    }
}

bool RunWorker::runJob(quint64 id, RunJob& job, const std::atomic<bool>& cancel) {
    db::History* history = job.historyPath.isEmpty() ? nullptr : d->openHistory(job.historyPath);
    std::optional<db::HistoryRecorder> recorder;
    if (history) {
        recorder.emplace(*history);
        recorder->set_map_provenance(job.generator.toStdString(), job.seed);
    }
    JobObserver observer(this, id, recorder ? &*recorder : nullptr);

    const std::size_t count = job.requests.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (cancel.load()) return true;
        RunRequest& request = job.requests[i];
        request.context.cancel = &cancel;
        observer.setRequest(i, count,
                            tr("%1 (%2 of %3)").arg(QString::fromStdString(request.variant_id)).arg(i + 1).arg(count));
        RunReport report = run_variant(request, &observer);

        auto outcome = std::make_shared<RunOutcome>();
        if (recorder) {
            // Also for refused and cancelled runs: the history keeps what the user tried.
            recorder->record(request, report);
            outcome->storedRunId = recorder->run_id();
            if (recorder->error()) outcome->storeError = QString::fromStdString(recorder->error()->message);
        } else if (!job.historyPath.isEmpty()) {
            outcome->storeError = d->historyError;
        }
        // A superseded job's results are dropped: the GUI shows only the latest request.
        if (cancel.load()) return true;
        request.context.cancel = nullptr;  // the flag dies with the job; the outcome outlives it
        outcome->request = std::move(request);
        outcome->report = std::move(report);
        QMetaObject::invokeMethod(
            this,
            [this, id, ready = RunOutcomePtr(std::move(outcome))] {
                // Checked again here: a newer job may have been submitted while this was queued.
                if (id == m_latest.load()) emit outcomeReady(id, ready);
            },
            Qt::QueuedConnection);
    }
    return false;
}

}  // namespace ps::ui
