// HistoryModel: asynchronous loading of stored runs and their presentation.
#include "ui/history/history_model.hpp"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QFileInfo>
#include <cmath>

#include "ui/common/async.hpp"

namespace ps::ui {

struct HistoryModel::LoadResult {
    std::vector<db::RunRow> rows;
    QString error;
    bool exists = false;
};

namespace {

QString qs(std::string_view text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }

bool isNumeric(int column) {
    using C = HistoryModel::Column;
    switch (column) {
    case C::Id:
    case C::Size:
    case C::Reps:
    case C::TotalMedian:
    case C::ComputeMedian:
    case C::Cost:
        return true;
    default:
        return false;
    }
}

QColor validationColour(const std::string& validation) {
    if (validation == "failed") return QColor(0xd0, 0x3b, 0x3b);
    if (validation == "passed" || validation == "reference") return QColor(0x2e, 0x9a, 0x4c);
    return {};
}

}  // namespace

QString formatMs(double ms) { return QString::number(ms, 'f', 3); }

QString formatCost(const db::RunRow& row) {
    const db::RunSummary& s = row.summary;
    if (s.status != "ok") return {};
    if (!s.found) return QStringLiteral("no path");
    // Integer costs (BFS levels, the integer metric) read better without decimals.
    return QString::number(s.cost, 'f', s.cost == std::floor(s.cost) ? 0 : 3);
}

QString formatLocalTime(std::int64_t unixMs) {
    return QDateTime::fromMSecsSinceEpoch(unixMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

HistoryModel::HistoryModel(QObject* parent) : QAbstractTableModel(parent) {}

// Loads still running finish on the pool; their watchers die with this object, so their
// answers go nowhere.
HistoryModel::~HistoryModel() = default;

void HistoryModel::setHistoryPath(const QString& path) {
    m_path = path;
    refresh();
}

void HistoryModel::setFilter(const db::RunFilter& filter) {
    m_filter = filter;
    refresh();
}

int HistoryModel::rowOfRun(std::int64_t runId) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == runId) return int(i);
    return -1;
}

void HistoryModel::refresh() {
    setLoading(true);
    if (m_path.isEmpty()) {
        m_load.drop();
        apply({{}, {}, false});
        return;
    }
    m_load.start(
        this,
        [path = m_path, filter = m_filter] {
            LoadResult result{{}, {}, QFileInfo::exists(path)};
            // A missing file only means nothing was stored yet; opening it read-only would
            // call that an error.
            if (!result.exists) return result;
            auto history = db::History::open(path.toStdString(), db::OpenMode::ReadOnly);
            if (!history) {
                result.error = qs(history.error().message);
                return result;
            }
            auto rows = history->list_runs(filter);
            if (rows)
                result.rows = std::move(*rows);
            else
                result.error = qs(rows.error().message);
            return result;
        },
        [this](LoadResult result) { apply(std::move(result)); },
        [this](const QString& error) {
            apply({{}, error, true});
        });
}

void HistoryModel::apply(LoadResult result) {
    beginResetModel();
    m_rows = std::move(result.rows);
    m_error = std::move(result.error);
    m_exists = result.exists;
    endResetModel();
    setLoading(false);
    emit loaded();
}

void HistoryModel::setLoading(bool loading) {
    if (m_loading == loading) return;
    m_loading = loading;
    emit loadingChanged(loading);
}

int HistoryModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int HistoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant HistoryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const db::RunRow& r = m_rows[std::size_t(index.row())];
    const db::RunInfo& in = r.info;
    const db::RunSummary& s = r.summary;
    const int column = index.column();
    if (role == RunIdRole) return qint64(r.id);
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue((isNumeric(column) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && column == Validation) {
        const QColor colour = validationColour(s.validation);
        return colour.isValid() ? QVariant(QBrush(colour)) : QVariant();
    }
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case Status:
            return s.message.empty() ? QVariant() : qs(s.message);
        case Device:
            return in.driver_version.empty() ? qs(in.host)
                                             : QStringLiteral("%1, driver %2, CUDA %3")
                                                   .arg(qs(in.host), qs(in.driver_version), qs(in.cuda_version));
        case Validation:
            return s.validation_message.empty() ? QVariant() : qs(s.validation_message);
        case Variant:
            return qs(in.params_json);
        default:
            return {};
        }
    }
    const bool sort = role == SortRole;
    if (!sort && role != Qt::DisplayRole) return {};
    const bool ok = s.status == "ok";
    switch (column) {
    case Id:
        return sort ? QVariant(qint64(r.id)) : QVariant(QString::number(r.id));
    case Date:
        return sort ? QVariant(qint64(r.created_unix_ms)) : QVariant(formatLocalTime(r.created_unix_ms));
    case Status:
        return qs(db::display_status(s.status));
    case Variant:
        return qs(in.variant);
    case Device:
        return in.device_name.empty() ? qs(in.device_kind) : qs(in.device_name);
    case Map:
        return qs(r.map_name);
    case Size:
        if (sort) return qint64(r.map_width) * r.map_height;
        return r.map_width ? QStringLiteral("%1×%2").arg(r.map_width).arg(r.map_height) : QString();
    case Reps:
        return sort ? QVariant(r.repetitions) : QVariant(QString::number(r.repetitions));
    case TotalMedian:
    case ComputeMedian: {
        const double ms = column == TotalMedian ? r.total_median_ms : r.compute_median_ms;
        if (sort) return r.repetitions ? ms : -1.0;  // runs without samples sort first
        return r.repetitions ? formatMs(ms) : QString();
    }
    case Validation:
        return qs(s.validation);
    case Cost:
        if (sort) return ok && s.found ? s.cost : -1.0;
        return formatCost(r);
    default:
        return {};
    }
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case TotalMedian:
            return tr("Median end-to-end time of the measured repetitions (allocate to download), ms");
        case ComputeMedian:
            return tr("Median time of the search itself, ms");
        case Cost:
            return tr("Path cost; for BFS the number of steps");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    static const char* const names[ColumnCount] = {"Id",   "Date", "Status",     "Variant",      "Device",     "Map",
                                                   "Size", "Reps", "Total (ms)", "Compute (ms)", "Validation", "Cost"};
    return tr(names[section]);
}

}  // namespace ps::ui
