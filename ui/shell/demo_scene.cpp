// DemoScene: generate, run, replay, wait for the history; then ready().
#include "ui/shell/demo_scene.hpp"

#include <QSet>

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

void DemoScene::start(int timeoutMs) {
    m_timeout.start(timeoutMs);
    if (m_generate) {
        // Wide like the canvas, blobby like a game map; the endpoints sit in opposite corners.
        GeneratorParams params;
        params.kind = GeneratorKind::Noise;
        params.width = 240;
        params.height = 150;
        params.seed = 11;
        params.density = 0.32;
        params.noise_frequency = 0.035;
        QString error;
        if (!m_window->document()->generate(params, &error)) return fail(error);
    }
    RunPanel* panel = m_window->runPanel();
    panel->selectVariants(m_variants);
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
            history->selectRuns({*shown->storedRunId});
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
