// The Scenarios dock: a MovingAI .scen file for the current map as a list of its queries with
// their optimal lengths (lines for another map size, or with a start or goal in a wall, are
// listed apart with their line numbers); picking a query sets the map's start and goal; "Run"
// searches every query (or every k-th) with the variants ticked in the Run dock under the
// MovingAI rule (8-connected, no corner cutting, real metric) on a worker thread, with progress
// and Cancel, and shows per query and variant the cost against the optimum, the expansions and
// the time, failures in red. The latest request wins: a new file or run drops older answers.
#pragma once

#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>

#include "kernels/map/map_io.hpp"
#include "ui/common/async.hpp"

class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTableView;

namespace ps::ui {

class ScenarioPanel : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioPanel(QWidget* parent = nullptr);
    ~ScenarioPanel() override;

    // The map the queries run on, asked for when a file is opened and when "Run" starts (a
    // snapshot: editing the map meanwhile changes nothing of a running check).
    void setMapSource(std::function<std::shared_ptr<const GridMap>()> source);
    // The variants "Run" searches with (the Run dock's ticked ones).
    void setVariantSource(std::function<QStringList()> source);
    // Reads and checks the file off the GUI thread; loaded() or the message follows.
    void openFile(const QString& path);
    void setEvery(int k);

    QStandardItemModel* model() const;
    QTableView* view() const;
    QString message() const;  // the summary, or why nothing could be loaded or run
    const std::vector<Scenario>& queries() const;
    bool running() const;

    // Columns before the per-variant ones.
    enum Column { Line, Bucket, Start, Goal, Optimal, FixedColumns };
    // A per-variant cell whose cost misses the optimum (or found no path) carries this role.
    static constexpr int FailedRole = Qt::UserRole + 1;

public slots:
    void run();
    void cancel();

signals:
    void loaded(int queries, int rejected);
    void querySelected(ps::Cell start, ps::Cell goal);
    void runFinished(int checked, int failed);

private:
    struct Private;
    std::unique_ptr<Private> d;

    void chooseFile();
    void showQueries();
};

}  // namespace ps::ui
