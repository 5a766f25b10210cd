// The PathScope window: the map canvas in the middle, docks for the run panel, the animation
// and the history (more, such as a timeline, plug in through addPanelDock), menus, shortcuts
// and a status bar with the hovered cell, zoom, map size and the GPU. The window only wires
// parts together: documents, models and workers live in their own classes.
#pragma once

#include <QMainWindow>
#include <memory>

#include "kernels/run/runner.hpp"
#include "ui/map/map_document.hpp"
#include "ui/run/run_worker.hpp"

class QDockWidget;

namespace ps::ui {

class Animation;
class HistoryPanel;
class MapView;
class RunPanel;

enum class Theme { System, Light, Dark };

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `historyPath`: where runs are stored and listed; empty: db::History::default_path().
    explicit MainWindow(const QString& historyPath = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    MapDocument* document() const;
    MapView* mapView() const;
    RunWorker* runWorker() const;
    RunPanel* runPanel() const;
    Animation* animation() const;
    HistoryPanel* historyPanel() const;

    // Tests and scripted runs turn prompts off: unsaved changes are then discarded without
    // asking, deletions are not confirmed and errors go to the status bar only. Also off when
    // the environment variable PATHSCOPE_NO_PROMPTS is set.
    void setPromptsEnabled(bool enabled);
    bool promptsEnabled() const;

    // Opens a .map or an image (asks about unsaved changes first). On failure the document is
    // unchanged, the error is shown and returned in `error`.
    bool openFile(const QString& path, QString* error = nullptr);
    // What the menus and drag and drop use: the file is read off the GUI thread (large maps
    // and images take seconds), then installed; a later open wins over an earlier one.
    void openFileAsync(const QString& path);
    // The same with how cells get their costs (File > Open as weighted terrain).
    void openFileAsync(const QString& path, const MapReadOptions& options);
    QString historyPath() const;
    void setHistoryPath(const QString& path);
    void setTheme(Theme theme);
    Theme theme() const;

    // Replays a finished run (a row of the run panel) in the animation.
    void showOutcome(const RunOutcomePtr& outcome);

    // A dock with `objectName` (saveState needs one) and a toggle in View > Panels.
    QDockWidget* addPanelDock(QWidget* widget, const QString& title, const QString& objectName,
                              Qt::DockWidgetArea area);

signals:
    // An openFileAsync request finished (stale requests report nothing).
    void fileOpened(const QString& path, bool ok, const QString& error);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    struct Private;
    std::unique_ptr<Private> d;

    void createMenus();
    void connectParts();
    void newMap();
    void openDialog();
    void openTerrainDialog();  // File > Open as weighted terrain: a file, then its costs
    bool save();
    bool saveAs();
    void exportView();
    void exportAnimation();                // File > Export animation: the shown replay as GIF / MP4
    void openBundle(const QString& path);  // a .psbundle: its runs in the history dock, read-only
    void about();
    bool maybeSave();  // true: go on (saved, discarded, or nothing to save)
    void addRecent(const QString& path);
    void updateTitle();
    void showError(const QString& title, const QString& text);
    // Shows a stored run's map in the editor unless it is the one already there.
    bool showMap(const std::shared_ptr<const GridMap>& map);
    void replay(std::shared_ptr<const GridMap> map, std::shared_ptr<const RunResult> result);
    void setupTimelineAndPlots();  // issue 7: the Timeline and Plots docks, lecture mode
};

}  // namespace ps::ui
