// The history view: filters (map, variant, device, date range), a sortable multi-select table
// of stored runs, and what to do with them: open (replay the animation from the stored
// recording), re-run, delete, compare side by side, export as CSV or JSON. Every file access
// runs off the GUI thread on a db::History of its own; errors (not a PathScope file, locked,
// newer schema) are shown in the panel.
#pragma once

#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/run/runner.hpp"
#include "ui/history/history_model.hpp"

class QTableView;

namespace ps::ui {

class HistoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit HistoryPanel(QWidget* parent = nullptr);
    ~HistoryPanel() override;

    HistoryModel* model() const;
    QTableView* view() const;
    void setHistoryPath(const QString& path);
    QString historyPath() const;
    // Off in tests and scripted use: Delete then proceeds without asking.
    void setConfirmDelete(bool confirm);
    // The error or notice shown in the panel (empty when none).
    QString message() const;

    // A run bundle (docs/bundle.md) shown instead of the history, read-only: its runs replay,
    // compare, re-run and export like stored ones; Delete is off; runs made meanwhile are still
    // stored in the history (historyPathChanged is not emitted). Import adds its runs there.
    void showBundle(const QString& path);
    bool showingBundle() const;
    QString bundlePath() const;  // empty when the history is shown

    std::vector<std::int64_t> selectedRunIds() const;  // in the table's current order
    void selectRuns(const std::vector<std::int64_t>& runIds);

public slots:
    void refresh();
    void openSelected();  // replays the current run
    void rerunSelected();
    void deleteSelected();
    void compareSelected();
    // Two selected runs animated side by side in lock-step, in a window of their own (loaded
    // with their recordings off the GUI thread; sideBySideOpened follows).
    void sideBySideSelected();
    void chooseHistoryFile();
    // Back from a bundle to the history; importBundle first adds the bundle's runs to it.
    void closeBundle();
    void importBundle();
    // Writes the selected runs ("csv", "json" or "bundle") to `path` off the GUI thread;
    // exported() or an error in the panel follows.
    void exportRuns(const std::vector<std::int64_t>& runIds, const QString& path, const QString& format);

signals:
    // The stored map (with the run's start and goal) and the stored result with its recordings.
    void replayRequested(std::shared_ptr<const ps::GridMap> map, std::shared_ptr<const ps::RunResult> result);
    // The stored request on the stored map.
    void rerunRequested(const ps::RunRequest& request);
    void historyPathChanged(const QString& path);
    void runsDeleted(int count);
    void exported(const QString& path);
    void statusMessage(const QString& text);
    void sideBySideOpened(QWidget* view);
    // A bundle was imported: `count` runs added to the history at `historyPath`.
    void bundleImported(int count, const QString& historyPath);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

}  // namespace ps::ui
