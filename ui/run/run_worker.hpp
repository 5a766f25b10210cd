// Runs go off the GUI thread: RunWorker owns a thread that takes jobs (one or several
// variants on one map snapshot), runs them through the shared orchestrator (ps::run_variant,
// storing to the history through db::HistoryRecorder when a history file is set), and
// reports progress and results as queued signals tagged with the job id. Submitting a new
// job cancels the running one: latest request wins, and results of stale jobs are dropped.
#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/run/runner.hpp"
#include "ui/run/run_outcome.hpp"

namespace ps::ui {

class RunWorker : public QObject {
    Q_OBJECT
public:
    explicit RunWorker(QObject* parent = nullptr);
    ~RunWorker() override;  // cancels and joins

    // Returns the job id; cancels the job that is running, if any.
    quint64 submit(RunJob job);
    void cancel();
    bool busy() const;
    quint64 currentJob() const { return m_latest.load(); }

signals:
    // Emitted in the thread that owns the RunWorker (the worker thread posts them there).
    // progress and outcomeReady only for the latest job; jobFinished for every job.
    void progress(quint64 job, double fraction, const QString& text);
    void outcomeReady(quint64 job, ps::ui::RunOutcomePtr outcome);
    void jobFinished(quint64 job, bool cancelled);

private:
    void loop();  // the worker thread's body
    // Runs one job's requests in order; true when the job was cancelled (or superseded).
    bool runJob(quint64 id, RunJob& job, const std::atomic<bool>& cancel);

    struct Private;
    std::unique_ptr<Private> d;
    std::atomic<quint64> m_latest{0};
};

}  // namespace ps::ui

Q_DECLARE_METATYPE(ps::ui::RunOutcomePtr)
