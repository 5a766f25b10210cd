// HistoryPanel: filters, the run table and its actions.
#include "ui/history/history_panel.hpp"

#include "ui/animation/side_by_side.hpp"

#include <QAction>
#include <QCheckBox>
#include <QDateEdit>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
#include <sstream>

#include "ui/common/async.hpp"
#include "ui/history/compare_dialog.hpp"
#include "ui/history/stored_run.hpp"

namespace ps::ui {

namespace {

// A date filter: a check box to switch it on and the date.
struct DateField {
    QCheckBox* enabled;
    QDateEdit* date;
};

DateField makeDateField(const QString& label, QWidget* parent) {
    DateField f{new QCheckBox(label, parent), new QDateEdit(QDate::currentDate(), parent)};
    f.date->setCalendarPopup(true);
    f.date->setDisplayFormat(QStringLiteral("yyyy-MM-dd"));
    f.date->setEnabled(false);
    QObject::connect(f.enabled, &QCheckBox::toggled, f.date, &QWidget::setEnabled);
    return f;
}

}  // namespace

struct HistoryPanel::Private {
    HistoryModel* model = nullptr;
    QSortFilterProxyModel* proxy = nullptr;
    QTableView* view = nullptr;
    QLabel* pathLabel = nullptr;
    bool inBundle = false;
    QString ownPath;  // the history, while a bundle is shown
    QWidget* bundleBar = nullptr;
    QLabel* message = nullptr;
    QLineEdit* mapFilter = nullptr;
    QLineEdit* variantFilter = nullptr;
    QLineEdit* deviceFilter = nullptr;
    DateField from{}, to{};
    QTimer filterTimer;
    QAction *open = nullptr, *rerun = nullptr, *remove = nullptr, *compare = nullptr, *exportCsv = nullptr,
            *exportJson = nullptr, *exportBundle = nullptr, *sideBySide = nullptr, *refresh = nullptr;
    bool confirmDelete = true;
    bool columnsSized = false;
    QString actionError;                      // the last action's error; the model's own error comes first
    LatestJob stored;                         // open / re-run: the latest click wins
    std::vector<std::int64_t> keepSelection;  // across reloads

    // The file's error first, then the last action's, then a notice for a file not made yet.
    void updateMessage() {
        QString text = model->errorText();
        if (text.isEmpty()) text = actionError;
        const bool error = !text.isEmpty();
        if (!error && !model->historyPath().isEmpty() && !model->historyExists() && !model->isLoading())
            text = QObject::tr("No runs stored yet: runs are kept in this file once you run a variant.");
        message->setText(text);
        message->setStyleSheet(error ? QStringLiteral("color: #d03b3b") : QString());
        message->setVisible(!text.isEmpty());
    }

    // Errors of actions stay until the next action or a change of file.
    void setActionError(const QString& error) {
        actionError = error;
        updateMessage();
    }

    // In table order (as sorted), so comparisons read left to right as the user sees them.
    std::vector<db::RunRow> selectedRows() const {
        QModelIndexList indexes = view->selectionModel()->selectedRows();
        std::sort(indexes.begin(), indexes.end(),
                  [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
        std::vector<db::RunRow> rows;
        for (const QModelIndex& index : indexes) rows.push_back(model->run(proxy->mapToSource(index).row()));
        return rows;
    }
};

HistoryPanel::HistoryPanel(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>()) {
    d->model = new HistoryModel(this);
    d->proxy = new QSortFilterProxyModel(this);
    d->proxy->setSourceModel(d->model);
    d->proxy->setSortRole(HistoryModel::SortRole);

    d->view = new QTableView(this);
    d->view->setModel(d->proxy);
    d->view->setSortingEnabled(true);
    d->view->sortByColumn(HistoryModel::Id, Qt::DescendingOrder);
    d->view->setSelectionBehavior(QAbstractItemView::SelectRows);
    d->view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    d->view->setAlternatingRowColors(true);
    d->view->setWordWrap(false);
    d->view->verticalHeader()->hide();
    d->view->verticalHeader()->setDefaultSectionSize(d->view->fontMetrics().height() + 6);
    d->view->horizontalHeader()->setStretchLastSection(true);
    d->view->setContextMenuPolicy(Qt::ActionsContextMenu);

    d->pathLabel = new QLabel(this);
    d->pathLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->pathLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* choose = new QPushButton(tr("Change…"), this);
    choose->setToolTip(tr("Use another history file"));
    connect(choose, &QPushButton::clicked, this, &HistoryPanel::chooseHistoryFile);

    d->mapFilter = new QLineEdit(this);
    d->variantFilter = new QLineEdit(this);
    d->deviceFilter = new QLineEdit(this);
    for (auto [edit, hint] : {std::pair{d->mapFilter, tr("map")}, std::pair{d->variantFilter, tr("variant")},
                              std::pair{d->deviceFilter, tr("device")}}) {
        edit->setPlaceholderText(hint);
        edit->setClearButtonEnabled(true);
        edit->setToolTip(tr("Show runs whose %1 contains this text (case-insensitive)").arg(hint));
        connect(edit, &QLineEdit::textChanged, &d->filterTimer, qOverload<>(&QTimer::start));
    }
    d->from = makeDateField(tr("from"), this);
    d->to = makeDateField(tr("to"), this);
    for (const DateField& f : {d->from, d->to}) {
        connect(f.enabled, &QCheckBox::toggled, &d->filterTimer, qOverload<>(&QTimer::start));
        connect(f.date, &QDateEdit::dateChanged, &d->filterTimer, qOverload<>(&QTimer::start));
    }
    // Typing goes to SQLite once the user pauses, not on every key.
    d->filterTimer.setSingleShot(true);
    d->filterTimer.setInterval(250);
    connect(&d->filterTimer, &QTimer::timeout, this, [this] {
        db::RunFilter filter;
        filter.map = d->mapFilter->text().trimmed().toStdString();
        filter.variant = d->variantFilter->text().trimmed().toStdString();
        filter.device = d->deviceFilter->text().trimmed().toStdString();
        // Whole local days, both ends included.
        if (d->from.enabled->isChecked()) filter.from_unix_ms = d->from.date->date().startOfDay().toMSecsSinceEpoch();
        if (d->to.enabled->isChecked())
            filter.to_unix_ms = d->to.date->date().addDays(1).startOfDay().toMSecsSinceEpoch() - 1;
        d->model->setFilter(filter);
    });

    auto action = [this](const QString& text, const QString& tip, auto slot) {
        auto* a = new QAction(text, this);
        a->setToolTip(tip);
        connect(a, &QAction::triggered, this, slot);
        d->view->addAction(a);
        return a;
    };
    d->open = action(tr("Open"), tr("Replay the run's animation on its map (Return or double-click)"),
                     &HistoryPanel::openSelected);
    d->rerun = action(tr("Re-run"), tr("Run the same variant with the same parameters on its map again"),
                      &HistoryPanel::rerunSelected);
    d->compare = action(tr("Compare"), tr("Numbers of two or more runs side by side"), &HistoryPanel::compareSelected);
    d->sideBySide = action(tr("Side by side"), tr("Two runs of one map animated side by side in lock-step"),
                           &HistoryPanel::sideBySideSelected);
    d->remove =
        action(tr("Delete"), tr("Delete the selected runs from the history (Del)"), &HistoryPanel::deleteSelected);
    auto exportAction = [this, action](const QString& format, const QString& tip) {
        return action(tr("Export %1…").arg(format.toUpper()), tip, [this, format] {
            const QString path =
                QFileDialog::getSaveFileName(this, tr("Export runs as %1").arg(format.toUpper()), "runs." + format,
                                             tr("%1 (*.%2)").arg(format.toUpper(), format));
            if (!path.isEmpty()) exportRuns(selectedRunIds(), path, format);
        });
    };
    d->exportCsv = exportAction(QStringLiteral("csv"), tr("Write the selected runs as CSV"));
    d->exportJson = exportAction(QStringLiteral("json"), tr("Write the selected runs with their samples as JSON"));
    d->exportBundle = action(tr("Export bundle…"),
                             tr("The selected runs in one file with their maps, recordings and traces, which another "
                                "PathScope opens"),
                             [this] {
                                 const QString path = QFileDialog::getSaveFileName(
                                     this, tr("Export runs as a bundle"), QStringLiteral("runs.psbundle"),
                                     tr("PathScope run bundle (*.psbundle)"));
                                 if (!path.isEmpty()) exportRuns(selectedRunIds(), path, QStringLiteral("bundle"));
                             });
    d->refresh = action(tr("Refresh"), tr("Read the history file again"), &HistoryPanel::refresh);
    d->open->setShortcut(Qt::Key_Return);
    d->remove->setShortcut(QKeySequence(Qt::Key_Delete));
    d->refresh->setShortcut(QKeySequence(Qt::Key_F5));  // not QKeySequence::Refresh: it includes Ctrl+R (Run)
    for (QAction* a : {d->open, d->remove, d->refresh}) a->setShortcutContext(Qt::WidgetShortcut);
    connect(d->view, &QTableView::doubleClicked, this, &HistoryPanel::openSelected);

    auto button = [this](QAction* a) {
        auto* b = new QToolButton(this);
        b->setDefaultAction(a);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        return b;
    };
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    exportMenu->addAction(d->exportCsv);
    exportMenu->addAction(d->exportJson);
    exportMenu->addAction(d->exportBundle);
    exportButton->setMenu(exportMenu);

    d->message = new QLabel(this);
    d->message->setWordWrap(true);
    d->message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->message->hide();

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("History:"), this));
    top->addWidget(d->pathLabel, 1);
    top->addWidget(choose);
    top->addWidget(button(d->refresh));
    auto* filters = new QHBoxLayout;
    filters->addWidget(d->mapFilter);
    filters->addWidget(d->variantFilter);
    filters->addWidget(d->deviceFilter);
    filters->addWidget(d->from.enabled);
    filters->addWidget(d->from.date);
    filters->addWidget(d->to.enabled);
    filters->addWidget(d->to.date);
    auto* buttons = new QHBoxLayout;
    for (QAction* a : {d->open, d->rerun, d->compare, d->sideBySide, d->remove}) buttons->addWidget(button(a));
    buttons->addWidget(exportButton);
    buttons->addStretch(1);
    // Shown with a bundle: what it is, and the way to keep its runs or to go back.
    d->bundleBar = new QWidget(this);
    auto* bar = new QHBoxLayout(d->bundleBar);
    bar->setContentsMargins(0, 0, 0, 0);
    auto* bundleNote = new QLabel(tr("A run bundle, read-only: its runs replay, compare and export."), d->bundleBar);
    bundleNote->setWordWrap(true);
    auto* importButton = new QPushButton(tr("Import into my history"), d->bundleBar);
    auto* backButton = new QPushButton(tr("Back to my history"), d->bundleBar);
    connect(importButton, &QPushButton::clicked, this, &HistoryPanel::importBundle);
    connect(backButton, &QPushButton::clicked, this, &HistoryPanel::closeBundle);
    bar->addWidget(bundleNote, 1);
    bar->addWidget(importButton);
    bar->addWidget(backButton);
    d->bundleBar->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(d->bundleBar);
    layout->addLayout(filters);
    layout->addWidget(d->view, 1);
    layout->addLayout(buttons);
    layout->addWidget(d->message);

    auto updateActions = [this, exportButton] {
        const auto n = d->view->selectionModel()->selectedRows().size();
        d->open->setEnabled(n == 1);
        d->rerun->setEnabled(n == 1);
        d->compare->setEnabled(n >= 2);
        d->sideBySide->setEnabled(n == 2);
        d->remove->setEnabled(n >= 1 && !showingBundle());  // a bundle is read-only
        d->exportCsv->setEnabled(n >= 1);
        d->exportJson->setEnabled(n >= 1);
        d->exportBundle->setEnabled(n >= 1);
        exportButton->setEnabled(n >= 1);
    };
    connect(d->view->selectionModel(), &QItemSelectionModel::selectionChanged, this, updateActions);
    connect(d->model, &QAbstractItemModel::modelAboutToBeReset, this, [this] { d->keepSelection = selectedRunIds(); });
    connect(d->model, &HistoryModel::loaded, this, [this, updateActions] {
        selectRuns(d->keepSelection);
        if (!d->columnsSized && d->model->rowCount() > 0) {
            // Once: afterwards the widths are the user's. Long device names stay elided.
            d->columnsSized = true;
            d->view->resizeColumnsToContents();
            const int widest = d->view->fontMetrics().horizontalAdvance(QStringLiteral("M")) * 18;
            for (int c = 0; c < HistoryModel::ColumnCount; ++c)
                d->view->setColumnWidth(c, std::min(d->view->columnWidth(c), widest));
        }
        updateActions();
        d->updateMessage();
    });
    updateActions();
}

HistoryPanel::~HistoryPanel() = default;

HistoryModel* HistoryPanel::model() const { return d->model; }
QTableView* HistoryPanel::view() const { return d->view; }
QString HistoryPanel::historyPath() const { return d->model->historyPath(); }
void HistoryPanel::setConfirmDelete(bool confirm) { d->confirmDelete = confirm; }
QString HistoryPanel::message() const { return d->message->isHidden() ? QString() : d->message->text(); }

void HistoryPanel::setHistoryPath(const QString& path) {
    if (d->inBundle) {  // another history chosen while a bundle is shown: the bundle closes
        d->inBundle = false;
        d->ownPath.clear();
        d->bundleBar->hide();
    }
    if (path == d->model->historyPath()) return;
    d->pathLabel->setText(path);
    d->pathLabel->setToolTip(path);
    d->actionError.clear();
    d->model->setHistoryPath(path);
    emit historyPathChanged(path);
}

void HistoryPanel::refresh() { d->model->refresh(); }

std::vector<std::int64_t> HistoryPanel::selectedRunIds() const {
    std::vector<std::int64_t> ids;
    for (const db::RunRow& row : d->selectedRows()) ids.push_back(row.id);
    return ids;
}

void HistoryPanel::selectRuns(const std::vector<std::int64_t>& runIds) {
    const QSet<qint64> wanted(runIds.begin(), runIds.end());
    QItemSelection selection;
    for (int row = 0; row < d->model->rowCount() && !wanted.isEmpty(); ++row) {
        if (!wanted.contains(d->model->run(row).id)) continue;
        const QModelIndex index = d->proxy->mapFromSource(d->model->index(row, 0));
        selection.select(index, index);
    }
    d->view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (!selection.isEmpty())
        d->view->selectionModel()->setCurrentIndex(selection.indexes().first(), QItemSelectionModel::NoUpdate);
}

void HistoryPanel::openSelected() {
    const auto rows = d->selectedRows();
    if (rows.size() != 1) return;
    emit statusMessage(tr("Loading run #%1 from the history…").arg(rows.front().id));
    d->stored.start(
        this, [path = historyPath(), row = rows.front()] { return loadStoredRun(path, row, true); },
        [this](StoredRun stored) {
            d->setActionError(stored.error);
            if (!stored.error.isEmpty()) return;
            emit statusMessage(tr("Replaying run #%1").arg(stored.runId));
            emit replayRequested(stored.map, stored.result);
        },
        [this](const QString& error) { d->setActionError(error); });
}

void HistoryPanel::rerunSelected() {
    const auto rows = d->selectedRows();
    if (rows.size() != 1) return;
    d->stored.start(
        this, [path = historyPath(), row = rows.front()] { return loadStoredRun(path, row, false); },
        [this](StoredRun stored) {
            d->setActionError(stored.error);
            if (!stored.error.isEmpty()) return;
            emit rerunRequested(stored.request);
        },
        [this](const QString& error) { d->setActionError(error); });
}

void HistoryPanel::deleteSelected() {
    const auto ids = selectedRunIds();
    if (ids.empty()) return;
    if (d->confirmDelete &&
        QMessageBox::question(
            this, tr("Delete runs"),
            tr("Delete %n run(s) with their samples, timelines and recordings from %1?", nullptr, int(ids.size()))
                .arg(historyPath()),
            QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes)
        return;
    struct Deleted {
        int count = 0;
        QString error;
    };
    runAsync(
        this,
        [path = historyPath(), ids] {
            auto history = db::History::open(path.toStdString(), db::OpenMode::ReadWrite);
            if (!history) return Deleted{0, QString::fromStdString(history.error().message)};
            auto n = history->delete_runs(ids);
            if (!n) return Deleted{0, QString::fromStdString(n.error().message)};
            return Deleted{int(*n), {}};
        },
        [this](Deleted deleted) {
            d->setActionError(deleted.error);
            if (deleted.error.isEmpty()) {
                emit statusMessage(tr("Deleted %n run(s)", nullptr, deleted.count));
                emit runsDeleted(deleted.count);
            }
            refresh();
        });
}

void HistoryPanel::compareSelected() {
    const auto rows = d->selectedRows();
    if (rows.size() < 2) return;
    auto* dialog = new CompareDialog(rows, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();  // not modal: compare while browsing the history
}

void HistoryPanel::sideBySideSelected() {
    const auto rows = d->selectedRows();
    if (rows.size() != 2) return;
    emit statusMessage(tr("Loading runs #%1 and #%2…").arg(rows[0].id).arg(rows[1].id));
    d->stored.start(
        this,
        [path = historyPath(), rows] {
            std::vector<StoredRun> runs;
            for (const db::RunRow& row : rows) runs.push_back(loadStoredRun(path, row, true));
            return runs;
        },
        [this](const std::vector<StoredRun>& runs) {
            std::vector<MoviePanel> panels;
            for (const StoredRun& run : runs) {
                if (!run.error.isEmpty()) return d->setActionError(run.error);
                panels.push_back({run.map, run.result,
                                  tr("run %1 %2").arg(run.runId).arg(QString::fromStdString(run.request.variant_id))});
            }
            auto* view = new SideBySideView(std::move(panels), window());
            view->setWindowFlag(Qt::Window);
            view->setAttribute(Qt::WA_DeleteOnClose);
            if (view->frameCount() == 0) {
                d->setActionError(tr("Neither run kept a recording to replay."));
                view->deleteLater();
                return;
            }
            view->show();
            emit sideBySideOpened(view);
        });
}

void HistoryPanel::exportRuns(const std::vector<std::int64_t>& runIds, const QString& path, const QString& format) {
    runAsync(
        this,
        [history = historyPath(), runIds, path, json = format == QLatin1String("json"),
         bundle = format == QLatin1String("bundle")]() -> QString {
            auto h = db::History::open(history.toStdString(), db::OpenMode::ReadOnly);
            if (!h) return QString::fromStdString(h.error().message);
            if (bundle) {  // written beside and renamed: a failure leaves the target as it was
                auto written = h->export_bundle(runIds, path.toStdString());
                return written ? QString() : QString::fromStdString(written.error().message);
            }
            std::ostringstream text;
            auto ok = json ? h->export_json(runIds, text) : h->export_csv(runIds, text);
            if (!ok) return QString::fromStdString(ok.error().message);
            // QSaveFile: a failed write (full disk) never leaves a truncated export behind.
            QSaveFile file(path);
            const std::string bytes = text.str();
            const auto size = qint64(bytes.size());
            if (!file.open(QIODevice::WriteOnly) || file.write(bytes.data(), size) != size || !file.commit())
                return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
            return {};
        },
        [this, path](const QString& error) {
            d->setActionError(error);
            if (!error.isEmpty()) return;
            emit statusMessage(tr("Exported to %1").arg(path));
            emit exported(path);
        });
}

void HistoryPanel::showBundle(const QString& path) {
    if (!d->inBundle) d->ownPath = d->model->historyPath();
    d->inBundle = true;
    d->pathLabel->setText(tr("%1 (bundle)").arg(path));
    d->pathLabel->setToolTip(path);
    d->actionError.clear();
    d->bundleBar->show();
    d->model->setHistoryPath(path);  // historyPathChanged stays quiet: new runs go to the history
}

bool HistoryPanel::showingBundle() const { return d->inBundle; }

QString HistoryPanel::bundlePath() const { return showingBundle() ? d->model->historyPath() : QString(); }

void HistoryPanel::closeBundle() {
    if (!showingBundle()) return;
    const QString own = std::exchange(d->ownPath, QString());
    d->inBundle = false;
    d->bundleBar->hide();
    d->pathLabel->setText(own);
    d->pathLabel->setToolTip(own);
    d->actionError.clear();
    d->model->setHistoryPath(own);
}

void HistoryPanel::importBundle() {
    if (!showingBundle()) return;
    runAsync(
        this,
        [history = d->ownPath, bundle = d->model->historyPath()]() -> std::pair<int, QString> {
            auto h = db::History::open(history.toStdString(), db::OpenMode::ReadWrite);
            if (!h) return {0, QString::fromStdString(h.error().message)};
            auto added = h->import_from(bundle.toStdString());
            if (!added) return {0, QString::fromStdString(added.error().message)};
            return {int(*added), QString()};
        },
        [this, history = d->ownPath](const std::pair<int, QString>& outcome) {
            if (!outcome.second.isEmpty()) {
                d->setActionError(outcome.second);
                return;
            }
            emit statusMessage(tr("Imported %n run(s) into %1", nullptr, outcome.first).arg(history));
            emit bundleImported(outcome.first, history);
            closeBundle();
        });
}

void HistoryPanel::chooseHistoryFile() {
    const QString start = historyPath().isEmpty() ? QString() : QFileInfo(historyPath()).absolutePath();
    // A new name is fine: the file is created when the first run is stored.
    const QString path = QFileDialog::getSaveFileName(this, tr("History file"), start,
                                                      tr("PathScope history (*.sqlite *.db);;All files (*)"), nullptr,
                                                      QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty()) setHistoryPath(path);
}

}  // namespace ps::ui
