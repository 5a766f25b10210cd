// HistoryPanel and the comparison: filter fields reach the model, actions follow the selection,
// Open and Re-run hand back the stored map with the recording or the request, errors of the
// file are shown in the panel, and the comparison lines (times, fastest, speedup, counters).
#include <QAbstractItemModelTester>
#include <QAction>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <sqlite3.h>

#include "tests/ui/support/history_fixture.hpp"
#include "ui/history/compare_dialog.hpp"
#include "ui/history/history_panel.hpp"

using namespace ps;
using namespace ps::ui;

namespace {
constexpr int kTimeoutMs = 30000;
}

class TestHistoryPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void filterFieldsReachTheModel();
    void actionsFollowTheSelection();
    void openAndRerunHandBackStoredRuns();
    void fileErrorsAreShown();
    void replayOfADamagedRecordingShowsAnError();
    void compareLinesPutRunsSideBySide();

private:
    QAction* action(HistoryPanel& panel, const QString& text) const {
        for (QAction* a : panel.view()->actions())
            if (a->text() == text) return a;
        return nullptr;
    }
    void load(HistoryPanel& panel) {
        panel.setHistoryPath(m_path);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.model()->isLoading(), kTimeoutMs);
        QCOMPARE(panel.model()->rowCount(), 3);
    }
    std::vector<db::RunRow> rows(const HistoryModel& model) const {
        std::vector<db::RunRow> out;
        for (int r = 0; r < model.rowCount(); ++r) out.push_back(model.run(r));
        return out;
    }

    QTemporaryDir m_dir;
    QString m_path;
};

void TestHistoryPanel::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_path = m_dir.filePath("history.sqlite");
    const QString error = test::fillHistory(m_path);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestHistoryPanel::filterFieldsReachTheModel() {
    HistoryPanel panel;
    QAbstractItemModelTester tester(panel.view()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    load(panel);
    auto* variant = panel.findChildren<QLineEdit*>().at(1);
    QCOMPARE(variant->placeholderText(), QString("variant"));
    variant->setText("bidir");
    QTRY_COMPARE_WITH_TIMEOUT(panel.model()->filter().variant, std::string("bidir"), kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel.model()->rowCount(), 1, kTimeoutMs);
    variant->clear();
    QTRY_COMPARE_WITH_TIMEOUT(panel.model()->rowCount(), 3, kTimeoutMs);
}

void TestHistoryPanel::actionsFollowTheSelection() {
    HistoryPanel panel;
    load(panel);
    QAction* open = action(panel, "Open");
    QAction* compare = action(panel, "Compare");
    QAction* remove = action(panel, "Delete");
    QVERIFY(open && compare && remove);
    QVERIFY(!open->isEnabled() && !compare->isEnabled() && !remove->isEnabled());
    const auto all = rows(*panel.model());
    panel.selectRuns({all[0].id});
    QVERIFY(open->isEnabled() && !compare->isEnabled() && remove->isEnabled());
    panel.selectRuns({all[0].id, all[2].id});
    QVERIFY(!open->isEnabled() && compare->isEnabled());
    // Table order: newest first (sorted by id, descending).
    QCOMPARE(panel.selectedRunIds(), (std::vector<std::int64_t>{all[0].id, all[2].id}));
    // A reload keeps the selection.
    panel.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.model()->isLoading(), kTimeoutMs);
    QCOMPARE(panel.selectedRunIds().size(), std::size_t(2));
}

void TestHistoryPanel::openAndRerunHandBackStoredRuns() {
    HistoryPanel panel;
    load(panel);
    const auto all = rows(*panel.model());
    const auto bfs =
        std::find_if(all.begin(), all.end(), [](const db::RunRow& r) { return r.info.variant == "bfs.cpu.queue"; });
    QVERIFY(bfs != all.end());
    panel.selectRuns({bfs->id});

    QSignalSpy replays(&panel, &HistoryPanel::replayRequested);
    panel.openSelected();
    QTRY_COMPARE_WITH_TIMEOUT(replays.count(), 1, kTimeoutMs);
    const auto map = replays.first().at(0).value<std::shared_ptr<const GridMap>>();
    const auto result = replays.first().at(1).value<std::shared_ptr<const RunResult>>();
    QVERIFY(map && result);
    QCOMPARE(map->width(), bfs->map_width);
    QCOMPARE(result->bfs_levels.size(), map->cell_count());
    QCOMPARE(result->levels, bfs->summary.levels);
    QVERIFY(map->goal);
    QCOMPARE(map->goal->x, bfs->info.goal_x);

    QSignalSpy reruns(&panel, &HistoryPanel::rerunRequested);
    panel.rerunSelected();
    QTRY_COMPARE_WITH_TIMEOUT(reruns.count(), 1, kTimeoutMs);
    const auto request = reruns.first().at(0).value<RunRequest>();
    QCOMPARE(request.variant_id, std::string("bfs.cpu.queue"));
    QVERIFY(request.problem.map);
    QCOMPARE(request.problem.rules.connectivity, Connectivity::Four);
    QVERIFY(request.context.record);
}

void TestHistoryPanel::fileErrorsAreShown() {
    HistoryPanel panel;
    QSignalSpy changed(&panel, &HistoryPanel::historyPathChanged);
    panel.setHistoryPath(m_dir.filePath("not-yet.sqlite"));
    QCOMPARE(changed.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.model()->isLoading(), kTimeoutMs);
    QVERIFY(panel.message().contains("No runs stored yet"));

    panel.setHistoryPath(m_dir.path());  // a folder
    QTRY_VERIFY_WITH_TIMEOUT(panel.message().contains("is a folder"), kTimeoutMs);
    QCOMPARE(panel.model()->rowCount(), 0);
}

void TestHistoryPanel::replayOfADamagedRecordingShowsAnError() {
    const QString damaged = m_dir.filePath("damaged.sqlite");
    QVERIFY(test::fillHistory(damaged).isEmpty());
    sqlite3* raw = nullptr;
    QCOMPARE(sqlite3_open(damaged.toUtf8().constData(), &raw), SQLITE_OK);
    QCOMPARE(sqlite3_exec(raw, "UPDATE recordings SET raw_size = -1", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);

    HistoryPanel panel;
    panel.setHistoryPath(damaged);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.model()->isLoading(), kTimeoutMs);
    const auto all = rows(*panel.model());
    const auto bfs =
        std::find_if(all.begin(), all.end(), [](const db::RunRow& r) { return r.info.variant == "bfs.cpu.queue"; });
    QVERIFY(bfs != all.end());
    panel.selectRuns({bfs->id});
    QSignalSpy replays(&panel, &HistoryPanel::replayRequested);
    panel.openSelected();
    QTRY_VERIFY_WITH_TIMEOUT(panel.message().contains("damaged"), kTimeoutMs);
    QCOMPARE(replays.count(), 0);
}

void TestHistoryPanel::compareLinesPutRunsSideBySide() {
    HistoryPanel panel;
    load(panel);
    auto runs = rows(*panel.model());
    runs[0].summary.counters_json = R"({"host_launches":12,"device_launches":3})";
    runs[1].summary.counters_json = R"({"host_launches":4})";
    runs[0].total_median_ms = 2.0;
    runs[1].total_median_ms = 1.0;
    runs[2].total_median_ms = 4.0;
    const auto lines = compareLines(runs);
    auto line = [&](const QString& field) -> const CompareLine& {
        static const CompareLine none;
        for (const CompareLine& l : lines)
            if (l.field == field) return l;
        return none;
    };
    QCOMPARE(line("Variant").values.size(), 3);
    QCOMPARE(line("Total median (ms)").values.at(1), QString("1.000"));
    QCOMPARE(line("Total median (ms)").best, 1);
    const CompareLine& speedup = line(QString("Speedup over #%1").arg(runs[0].id));
    QCOMPARE(speedup.values, (QStringList{"1.00×", "2.00×", "0.50×"}));
    QCOMPARE(line("host_launches").values, (QStringList{"12", "4", ""}));
    QCOMPARE(line("device_launches").values, (QStringList{"3", "", ""}));
    QCOMPARE(line("Validation").values.size(), 3);

    CompareDialog dialog(runs);
    QCOMPARE(dialog.table()->columnCount(), 3);
    QCOMPARE(dialog.table()->rowCount(), int(lines.size()));
    QVERIFY(dialog.table()->item(dialog.table()->rowCount() - 1, 0));
}

QTEST_MAIN(TestHistoryPanel)
#include "test_history_panel.moc"
