// The Run dock on a remote target: a local-subprocess target (the built pathscope-cli serve)
// chosen in the panel is connected off the GUI thread, the variants' availability comes from
// it, a run goes there and its result (validated, with its recording) lands in the results
// table as a local one would; a target that cannot start says why on the status line and the
// panel falls back to this machine. Targets are saved with QSettings and read back.
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "ui/run/run_panel.hpp"

using namespace ps;
using namespace ps::ui;

class TestRunPanelTarget : public QObject {
    Q_OBJECT
    QTemporaryDir m_settings;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PathScopeTests"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    }

    void targetsAreSavedAndReadBack() {
        const QList<TargetEntry> targets = {{QStringLiteral("gpu box"), QStringLiteral("ssh -J bastion gpu"),
                                             QStringLiteral("/opt/pathscope/bin/pathscope-cli")},
                                            {QStringLiteral("here"), QString(), QStringLiteral("pathscope-cli")}};
        saveTargets(targets);
        QCOMPARE(loadTargets(), targets);
        MapDocument document;
        RunWorker worker;
        RunPanel panel(&document, &worker);
        auto* chooser = panel.findChild<QComboBox*>(QStringLiteral("target"));
        QVERIFY(chooser);
        // This machine, the two saved targets, and Manage targets…
        QCOMPARE(chooser->count(), 4);
        QCOMPARE(chooser->itemText(1), QStringLiteral("gpu box"));
        QCOMPARE(spec_command(targets[0]), QStringLiteral("ssh -J bastion gpu /opt/pathscope/bin/pathscope-cli serve"));
        saveTargets({});
    }

    void runsGoToTheChosenTarget() {
        MapDocument document;
        document.setMap(GridMap(40, 30), QStringLiteral("open"));
        RunWorker worker;
        RunPanel panel(&document, &worker);
        QSignalSpy changed(&panel, &RunPanel::targetChanged);
        TargetEntry local;
        local.name = QStringLiteral("subprocess");
        // The built CLI; PATHSCOPE_TEST_CLI where the tests run from a bundle (the GPU machine).
        local.remoteCli = qEnvironmentVariable("PATHSCOPE_TEST_CLI", QStringLiteral(PATHSCOPE_CLI));
        panel.useTarget(local);
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, 30000);
        QCOMPARE(panel.targetLabel(), QStringLiteral("subprocess"));
        // Availability as the target says: its GPU variants are tickable only if it has a GPU.
        auto* tree = panel.findChild<QTreeWidget*>();
        const auto gpu = tree->findItems(QStringLiteral("bfs.gpu.dp"), Qt::MatchExactly | Qt::MatchRecursive);
        QCOMPARE(gpu.size(), 1);
        panel.selectVariants({QStringLiteral("astar.cpu"), QStringLiteral("bfs.gpu.dp")});
        const bool target_gpu = !gpu.front()->isDisabled();
        QCOMPARE(panel.selectedVariants().size(), target_gpu ? 2 : 1);

        panel.runSelected();
        QTRY_COMPARE_WITH_TIMEOUT(panel.results()->rowCount(), target_gpu ? 2 : 1, 60000);
        // The rows come in the order the runs finish or the tree lists the variants: by id.
        const auto outcomeOf = [&panel](const std::string& id) {
            for (int row = 0; row < panel.results()->rowCount(); ++row)
                if (auto o = panel.results()->outcome(row); o && o->report.info.id == id) return o;
            return decltype(panel.results()->outcome(0)){};
        };
        const auto astar = outcomeOf("astar.cpu");
        QVERIFY(astar);
        QCOMPARE(astar->report.result.status, RunStatus::Ok);
        QCOMPARE(astar->report.result.validation, Validation::Passed);
        QVERIFY(astar->report.result.recording);  // the animation replays what came back
        QVERIFY(!astar->report.result.recording->events.empty());
        QVERIFY(astar->request.executor);
        if (target_gpu) {
            const auto dp = outcomeOf("bfs.gpu.dp");
            QVERIFY(dp);
            QCOMPARE(dp->report.result.validation, Validation::Passed);
            QVERIFY(!dp->report.result.bfs_levels.empty());
        }

        // Back to this machine: the next run is local.
        panel.setTarget(nullptr, QString());
        QCOMPARE(panel.targetLabel(), QStringLiteral("This machine"));
        panel.selectVariants({QStringLiteral("astar.cpu")});
        panel.runSelected();
        QTRY_COMPARE_WITH_TIMEOUT(panel.results()->rowCount(), (target_gpu ? 2 : 1) + 1, 60000);
        QVERIFY(!panel.results()->outcome(panel.results()->rowCount() - 1)->request.executor);
    }

    // The Targets dialog: Add makes an entry, the fields edit it, Test connects to it (off the
    // GUI thread) and says what is there, Save writes the list to QSettings.
    void targetsDialogAddsTestsAndSaves() {
        saveTargets({});
        TargetsDialog dialog;
        QPushButton* add = nullptr;
        QPushButton* test = nullptr;
        for (auto* b : dialog.findChildren<QPushButton*>()) {
            if (b->text() == QStringLiteral("Add")) add = b;
            if (b->text() == QStringLiteral("Test")) test = b;
        }
        QVERIFY(add && test);
        add->click();
        const auto edits = dialog.findChildren<QLineEdit*>();
        QCOMPARE(edits.size(), 3);  // name, prefix, remote program
        edits[0]->setText(QStringLiteral("subprocess"));
        emit edits[0]->textEdited(edits[0]->text());
        edits[2]->setText(qEnvironmentVariable("PATHSCOPE_TEST_CLI", QStringLiteral(PATHSCOPE_CLI)));
        emit edits[2]->textEdited(edits[2]->text());
        test->click();
        QLabel* result = nullptr;
        for (auto* l : dialog.findChildren<QLabel*>())
            if (l->text().startsWith(QStringLiteral("Connecting"))) result = l;
        QVERIFY(result);
        QTRY_VERIFY_WITH_TIMEOUT(result->text().startsWith(QStringLiteral("Connected")), 30000);
        QVERIFY(result->text().contains(QStringLiteral("variants available there")));
        auto* buttons = dialog.findChild<QDialogButtonBox*>();
        QVERIFY(buttons);
        buttons->button(QDialogButtonBox::Save)->click();
        const QList<TargetEntry> saved = loadTargets();
        QCOMPARE(saved.size(), 1);
        QCOMPARE(saved[0].name, QStringLiteral("subprocess"));
        QCOMPARE(saved[0].prefix, QString());
        saveTargets({});
    }

    void aTargetThatCannotStartSaysWhy() {
        MapDocument document;
        RunWorker worker;
        RunPanel panel(&document, &worker);
        QSignalSpy status(&panel, &RunPanel::statusMessage);
        TargetEntry broken;
        broken.name = QStringLiteral("nowhere");
        broken.remoteCli = QStringLiteral("/nonexistent/pathscope-cli");
        panel.useTarget(broken);
        QTRY_VERIFY_WITH_TIMEOUT(
            !status.isEmpty() && status.last().at(0).toString().contains(QStringLiteral("Could not connect")), 30000);
        QVERIFY(status.last().at(0).toString().contains(QStringLiteral("not found")));
        QCOMPARE(panel.targetLabel(), QStringLiteral("This machine"));
    }

private:
    static QString spec_command(const TargetEntry& t) { return QString::fromStdString(t.spec().command()); }
};

QTEST_MAIN(TestRunPanelTarget)
#include "test_run_panel_target.moc"
