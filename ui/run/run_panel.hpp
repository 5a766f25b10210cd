// The run panel: pick one or several variants (grouped BFS / shortest path, CPU / GPU; GPU
// ones disabled with the reason as tooltip when there is no GPU), their parameters, movement
// rules, cost metric, heuristic, repetitions and warm-ups; Run submits a job to the RunWorker
// with a snapshot of the map, a progress bar and Cancel follow it; finished variants land in
// the results table (and in the history when a history file is set).
#pragma once

#include <QWidget>
#include <functional>

#include "ui/map/map_document.hpp"
#include "ui/run/results_model.hpp"
#include "ui/run/run_worker.hpp"
#include "ui/run/targets.hpp"

class QTreeWidgetItem;

namespace ps::ui {

// The values a variant parameter takes when its description lists them ("...: a, b or c", or
// "a: what a does; b: what b does"); empty when it lists none or the default is not among them
// (the panel then offers a free text field).
QStringList parameterChoices(const ps::ParamSpec& spec);

class RunPanel : public QWidget {
    Q_OBJECT
public:
    RunPanel(MapDocument* document, RunWorker* worker, QWidget* parent = nullptr);
    ~RunPanel() override;

    ResultsModel* results() const;
    void setHistoryPath(const QString& path);  // empty: do not store
    QStringList selectedVariants() const;
    // Adjusts each request before it is checked and submitted (batch runs get their roadmap and
    // agents there); a non-empty return refuses the run with that text.
    using RequestHook = std::function<QString(ps::RunRequest&, const ps::VariantInfo&)>;
    void setRequestHook(RequestHook hook);
    void selectVariants(const QStringList& ids);
    // Where runs go: a connected target (its variants' availability is asked there), or null
    // for this machine. useTarget connects off the GUI thread first (targetChanged on success,
    // the status line on failure, back on this machine).
    void setTarget(std::shared_ptr<Executor> executor, const QString& label);
    void useTarget(const TargetEntry& entry);
    QString targetLabel() const;
    // Live: every change of the start, the goal or the walls re-runs the ticked variants that
    // can run here (once, recorded, not stored) on a worker thread; the latest change wins and
    // liveUpdated hands over its first result. The time from the change to that result:
    // lastLiveLatencyMs (measured, for the benchmark in the README).
    void setLive(bool on);
    bool live() const;
    double lastLiveLatencyMs() const;

public slots:
    void runSelected();
    void cancel();
    void rerun(const ps::RunRequest& request);  // a stored run, on the current map snapshot
    // The two selected results (Ctrl+click) animated side by side in lock-step, in a window of
    // their own; sideBySideOpened follows.
    void sideBySideSelected();

signals:
    // A result row was selected, or a new result arrived: the window replays it.
    void outcomeSelected(ps::ui::RunOutcomePtr outcome);
    void outcomeStored(std::int64_t runId);  // the history view refreshes
    void statusMessage(const QString& text);
    void targetChanged(const QString& label);  // "This machine", or the target's name
    void liveUpdated(ps::ui::RunOutcomePtr outcome, double latencyMs);
    void sideBySideOpened(QWidget* view);

private:
    void showParams(QTreeWidgetItem* item);  // the parameter editors of the current variant
    void refreshAvailability();              // each variant's check box, here or on the target
    void fillTargets();                      // the chooser: this machine, saved targets, Manage
    void setStatus(const QString& text, bool problem);
    void submit(RunJob job);
    void arrive(RunOutcomePtr outcome);
    void finish(bool cancelled);
    void runLive();

    struct Private;
    std::unique_ptr<Private> d;
};

}  // namespace ps::ui
