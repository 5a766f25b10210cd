// ResultsModel (see results_model.hpp): display text, tooltips with the messages a user needs
// (validation, errors, storing), a colour badge for the validation outcome, and raw numbers
// under SortRole so a QSortFilterProxyModel sorts numerically, not by text.
#include "ui/run/results_model.hpp"

#include <QColor>
#include <QLocale>
#include <QStringList>
#include <limits>
#include <optional>

namespace ps::ui {
namespace {

// Milliseconds with precision that suits their size (0.012 ms, 3.45 ms, 1234.5 ms).
QString formatMs(double ms) {
    const int decimals = ms < 1 ? 3 : ms < 100 ? 2 : 1;
    return QLocale().toString(ms, 'f', decimals);
}

QString formatStats(const Stats& s) {
    if (s.n == 0) return {};
    if (s.n == 1) return ResultsModel::tr("%1 ms").arg(formatMs(s.median));
    return ResultsModel::tr("%1 ms (%2–%3)").arg(formatMs(s.median), formatMs(s.min), formatMs(s.max));
}

bool ok(const RunOutcome& o) { return o.report.result.status == RunStatus::Ok; }

// Validation, or the run's status when it did not complete: what the badge column shows.
QString validationText(const RunOutcome& o) {
    if (!ok(o)) return QString::fromUtf8(to_string(o.report.result.status));
    switch (o.report.result.validation) {
    case Validation::Passed:
        return ResultsModel::tr("passed");
    case Validation::Failed:
        return ResultsModel::tr("FAILED");
    case Validation::Reference:
        return ResultsModel::tr("reference");
    case Validation::NotRun:
        break;
    }
    return ResultsModel::tr("not run");
}

QColor badgeColour(const RunOutcome& o) {
    if (!ok(o))
        return o.report.result.status == RunStatus::Cancelled ? QColor(0x9e, 0x9e, 0x9e) : QColor(0xe6, 0x7e, 0x22);
    switch (o.report.result.validation) {
    case Validation::Passed:
        return {0x2e, 0xa0, 0x43};
    case Validation::Failed:
        return {0xd0, 0x30, 0x30};
    case Validation::Reference:
        return {0x3a, 0x7b, 0xd5};
    case Validation::NotRun:
        break;
    }
    return {0x9e, 0x9e, 0x9e};
}

// Sort order of the badge column: problems first when sorted ascending.
int validationRank(const RunOutcome& o) {
    if (!ok(o)) return 0;
    switch (o.report.result.validation) {
    case Validation::Failed:
        return 1;
    case Validation::NotRun:
        return 2;
    case Validation::Passed:
        return 3;
    case Validation::Reference:
        return 4;
    }
    return 2;
}

QString costText(const RunOutcome& o) {
    const RunResult& r = o.report.result;
    if (!ok(o)) return QStringLiteral("—");
    if (!r.found) return ResultsModel::tr("no path");
    const bool whole = o.report.info.family == Family::Bfs || o.request.problem.cost_mode == CostMode::Integer;
    return QLocale().toString(r.cost, 'f', whole ? 0 : 3);
}

QString toolTip(const RunOutcome& o) {
    const RunResult& r = o.report.result;
    QStringList lines;
    lines << QString::fromStdString(o.report.info.id.empty() ? o.request.variant_id : o.report.info.id);
    if (!o.report.info.description.empty()) lines << QString::fromStdString(o.report.info.description);
    if (!r.message.empty())
        lines << ResultsModel::tr("%1: %2").arg(QString::fromUtf8(to_string(r.status)),
                                                QString::fromStdString(r.message));
    if (!r.validation_message.empty())
        lines << ResultsModel::tr("Validation: %1").arg(QString::fromStdString(r.validation_message));
    if (o.report.samples.size() > 1)
        lines << ResultsModel::tr("%1 repetitions, %2 warm-ups; total mean %3 ms, sd %4 ms")
                     .arg(o.report.samples.size())
                     .arg(o.request.warmup)
                     .arg(formatMs(o.report.stats.total.mean), formatMs(o.report.stats.total.sd));
    if (!o.storeError.isEmpty()) lines << ResultsModel::tr("Not stored in the history: %1").arg(o.storeError);
    return lines.join(QLatin1Char('\n'));
}

// A BFS run's rate (kernels/run/edges_visited.hpp), where the runner counted it.
std::optional<double> mteps(const RunOutcome& o) {
    const auto& c = o.report.result.counters;
    const auto it = c.find(kMtepsCounter);
    return it == c.end() ? std::nullopt : std::optional<double>(it->second);
}

}  // namespace

ResultsModel::ResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

int ResultsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int ResultsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ResultsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const RunOutcome& o = *m_rows[std::size_t(index.row())];
    const RunResult& r = o.report.result;
    const bool bfs = o.report.info.family == Family::Bfs;
    const auto column = Column(index.column());

    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Variant:
            return QString::fromStdString(o.report.info.id.empty() ? o.request.variant_id : o.report.info.id);
        case Device:
            return o.report.info.device == DeviceKind::Gpu ? tr("GPU") : tr("CPU");
        case Cost:
            return costText(o);
        case Expanded:
            return ok(o) ? QLocale().toString(qulonglong(r.expanded)) : QString();
        case Levels:
            return ok(o) && bfs ? QLocale().toString(r.levels) : QString();
        case Mteps:
            return ok(o) && mteps(o) ? QLocale().toString(*mteps(o), 'g', 4) : QString();
        case Validation:
            return validationText(o);
        case Total:
            return formatStats(o.report.stats.total);
        case Compute:
            return formatStats(o.report.stats.compute);
        case Stored:
            if (o.storedRunId) return QStringLiteral("#%1").arg(*o.storedRunId);
            return o.storeError.isEmpty() ? QString() : tr("failed");
        case ColumnCount:
            break;
        }
        return {};
    case SortRole:
        switch (column) {
        case Variant:
            return data(index, Qt::DisplayRole);
        case Device:
            return int(o.report.info.device);
        // Runs without a cost sort after every real cost.
        case Cost:
            return ok(o) && r.found ? r.cost : std::numeric_limits<double>::infinity();
        case Expanded:
            return qulonglong(r.expanded);
        case Levels:
            return r.levels;
        case Mteps:
            return mteps(o).value_or(-1);
        case Validation:
            return validationRank(o);
        case Total:
            return o.report.stats.total.median;
        case Compute:
            return o.report.stats.compute.median;
        case Stored:
            return o.storedRunId ? qlonglong(*o.storedRunId) : qlonglong(-1);
        case ColumnCount:
            break;
        }
        return {};
    case Qt::ToolTipRole:
        return toolTip(o);
    case Qt::DecorationRole:
        if (column == Validation) return badgeColour(o);
        return {};
    case Qt::ForegroundRole:
        if (column == Validation && (!ok(o) || r.validation == ps::Validation::Failed)) return badgeColour(o);
        if (column == Stored && !o.storeError.isEmpty()) return badgeColour(o);
        return {};
    case Qt::TextAlignmentRole:
        if (column == Variant || column == Device || column == Validation) return {};
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    default:
        return {};
    }
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        switch (Column(section)) {
        case Variant:
            return tr("Variant");
        case Device:
            return tr("Device");
        case Cost:
            return tr("Path cost");
        case Expanded:
            return tr("Expanded");
        case Levels:
            return tr("Levels");
        case Mteps:
            return tr("MTEPS");
        case Validation:
            return tr("Validation");
        case Total:
            return tr("End-to-end");
        case Compute:
            return tr("Compute");
        case Stored:
            return tr("Run");
        case ColumnCount:
            break;
        }
    } else if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case Cost:
            return tr("Path cost in the run's metric (BFS: steps from the goal to the start)");
        case Expanded:
            return tr("Vertices expanded (BFS: vertices reached)");
        case Levels:
            return tr("BFS levels (depth of the search)");
        case Mteps:
            return tr("BFS: millions of edges visited per second of median compute (as gunrock reports)");
        case Total:
            return tr("Median total time of the measured repetitions (min–max)");
        case Compute:
            return tr("Median compute time of the measured repetitions (min–max)");
        case Stored:
            return tr("Id of the run in the history");
        default:
            break;
        }
    }
    return {};
}

void ResultsModel::add(RunOutcomePtr outcome) {
    if (!outcome) return;
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.push_back(std::move(outcome));
    endInsertRows();
}

void ResultsModel::clear() {
    if (m_rows.empty()) return;
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

RunOutcomePtr ResultsModel::outcome(int row) const {
    if (row < 0 || row >= int(m_rows.size())) return {};
    return m_rows[std::size_t(row)];
}

}  // namespace ps::ui
