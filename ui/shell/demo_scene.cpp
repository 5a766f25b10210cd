// DemoScene: generate, run, replay, wait for the history; then ready().
#include "ui/shell/demo_scene.hpp"

#include <QComboBox>
#include <QSet>
#include <cmath>
#include <utility>

#include "ui/animation/animation.hpp"
#include "ui/history/history_panel.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/map/map_document.hpp"
#include "ui/run/run_panel.hpp"

namespace ps::ui {

DemoScene::DemoScene(MainWindow* window, QObject* parent) : QObject(parent), m_window(window) {
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] { fail(tr("the demo runs did not finish in time")); });
}

GridMap weightedTerrainDemoMap() {
    constexpr int kWidth = 240, kHeight = 150;
    constexpr std::uint8_t kSwamp = 5, kWater = 20;
    GridMap map(kWidth, kHeight);
    map.name = "weighted-terrain";
    for (int y = 0; y < kHeight; ++y) {
        // The swamp winds down the map, 14 to 26 cells wide.
        const double centre = 62.0 + 14.0 * std::sin(y / 17.0);
        const double half = 7.0 + 6.0 * (0.5 + 0.5 * std::cos(y / 23.0));
        for (int x = 0; x < kWidth; ++x) {
            if (std::abs(x - centre) <= half) map.set_cost(x, y, kSwamp);
            // The lake: an ellipse from y = 22 to the bottom edge, a shore of swamp round it.
            const double dx = (x - 140.0) / 30.0, dy = (y - 88.0) / 66.0;
            const double r = dx * dx + dy * dy;
            if (r <= 1.0)
                map.set_cost(x, y, kWater);
            else if (r <= 1.25)
                map.set_cost(x, y, kSwamp);
        }
    }
    // A wall before the goal, free at both ends.
    for (int y = 38; y < 112; ++y)
        for (int x = 196; x < 200; ++x) map.set_cost(x, y, 0);
    map.start = Cell{12, 75};
    map.goal = Cell{226, 75};
    return map;
}

void DemoScene::start(int timeoutMs) {
    m_timeout.start(timeoutMs);
    if (m_weighted) {
        m_window->document()->setMap(weightedTerrainDemoMap(), QStringLiteral("weighted-terrain"));
    } else if (m_generate) {
        // Wide like the canvas, blobby like a game map; the endpoints sit in opposite corners.
        GeneratorParams params;
        params.kind = GeneratorKind::Noise;
        params.width = 240;
        params.height = 150;
        params.seed = 11;
        params.density = 0.32;
        params.noise_frequency = 0.035;
        if (m_side > 0) {  // `pathscope-cli run --gen noise --size N`'s map (its defaults, seed 1)
            params = GeneratorParams{};
            params.kind = GeneratorKind::Noise;
            params.width = params.height = m_side;
            params.seed = 1;
        }
        if (m_params) params = *m_params;
        QString error;
        if (!m_window->document()->generate(params, &error)) return fail(error);
        if (m_side > 0 || m_params) {  // endpoints near opposite corners, in one region (4-connected: BFS's)
            const auto map = m_window->document()->snapshot();
            const MoveRules four{Connectivity::Four, CornerRule::None};
            const auto ends = nearest_in_largest_region(*map, four, {{0, 0}, {params.width - 1, params.height - 1}});
            if (ends.size() == 2 && ends[0] && ends[1]) {
                m_window->document()->setStart(*ends[0]);
                m_window->document()->setGoal(*ends[1]);
            }
        }
    }
    RunPanel* panel = m_window->runPanel();
    if (m_target) {  // connect first; the runs go there
        connect(
            panel, &RunPanel::targetChanged, this,
            [this](const QString& label) {
                if (label != m_target->name) return fail(tr("could not connect to the target (see the status line)"));
                runNow();
            },
            Qt::SingleShotConnection);
        panel->useTarget(*m_target);
        return;
    }
    runNow();
}

void DemoScene::runNow() {
    RunPanel* panel = m_window->runPanel();
    panel->selectVariants(m_variants);
    for (const auto& [name, value] : {std::pair{"trace", m_trace}, std::pair{"cost", m_cost}}) {
        auto* combo = panel->findChild<QComboBox*>(QString::fromLatin1(name));
        if (combo && value >= 0) combo->setCurrentIndex(combo->findData(value));
    }
    const quint64 before = m_window->runWorker()->currentJob();
    connect(m_window->runWorker(), &RunWorker::jobFinished, this, [this](quint64 job, bool cancelled) {
        if (job != m_job || m_done) return;
        if (cancelled) return fail(tr("the demo runs were cancelled"));
        showResult();
    });
    panel->runSelected();
    m_job = m_window->runWorker()->currentJob();
    if (m_job == before) fail(tr("the run panel did not start the demo runs (see its status)"));
}

void DemoScene::showResult() {
    const ResultsModel* results = m_window->runPanel()->results();
    RunOutcomePtr shown;
    for (int row = 0; row < results->rowCount(); ++row) {
        RunOutcomePtr outcome = results->outcome(row);
        if (outcome && QString::fromStdString(outcome->request.variant_id) == m_shown) shown = outcome;
    }
    if (!shown) return fail(tr("%1 gave no result").arg(m_shown));
    if (shown->report.result.status != RunStatus::Ok) return fail(QString::fromStdString(shown->report.result.message));
    m_window->showOutcome(shown);
    m_window->animation()->jumpToEnd();

    // Ready once the history lists what was stored (or at once when nothing is stored).
    HistoryPanel* history = m_window->historyPanel();
    const auto finishWhenListed = [this, history, shown] {
        if (m_done || history->model()->isLoading()) return;
        if (shown->storedRunId) {
            if (history->model()->rowOfRun(*shown->storedRunId) < 0) return;
            std::vector<std::int64_t> ids = {*shown->storedRunId};
            if (m_select_all) {
                ids.clear();
                const ResultsModel* all = m_window->runPanel()->results();
                for (int row = 0; row < all->rowCount(); ++row)
                    if (auto o = all->outcome(row); o && o->storedRunId) ids.push_back(*o->storedRunId);
            }
            history->selectRuns(ids);
        }
        m_done = true;
        m_timeout.stop();
        // One more turn of the event loop so layouts and repaints settle before a grab.
        QTimer::singleShot(100, this, &DemoScene::ready);
    };
    connect(history->model(), &HistoryModel::loaded, this, finishWhenListed);
    history->refresh();
}

void DemoScene::fail(const QString& reason) {
    if (m_done) return;
    m_done = true;
    m_timeout.stop();
    emit failed(reason);
}

int distinctColours(const QImage& image, int stopAt) {
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    QSet<QRgb> seen;
    for (int y = 0; y < rgb.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x) {
            seen.insert(line[x]);
            if (seen.size() >= stopAt) return int(seen.size());
        }
    }
    return int(seen.size());
}

}  // namespace ps::ui
