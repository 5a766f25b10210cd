// Table models of the timeline's statistics (see timeline_stats_model.hpp).
#include "ui/timeline/stats/timeline_stats_model.hpp"

#include <QCoreApplication>
#include <QLocale>

namespace ps::ui {

namespace {

constexpr auto kNumber = Qt::AlignRight | Qt::AlignVCenter;

QString percentText(double p) { return QLocale().toString(p, 'f', 1); }

QString kindText(trace::EventKind kind) { return QString::fromStdString(std::string(trace::to_string(kind))); }

// The cells every duration table shares, by statistic.
QVariant durationCell(const trace::DurationStats& s, int which, int role) {
    // which: 0 count, 1 total, 2 mean, 3 median, 4 min, 5 max, 6 stddev
    double raw = 0;
    switch (which) {
    case 0:
        return role == Qt::DisplayRole ? QVariant(QLocale().toString(qulonglong(s.count)))
                                       : QVariant(qulonglong(s.count));
    case 1:
        raw = double(s.total_ns);
        break;
    case 2:
        raw = s.mean_ns;
        break;
    case 3:
        raw = s.median_ns;
        break;
    case 4:
        raw = double(s.min_ns);
        break;
    case 5:
        raw = double(s.max_ns);
        break;
    default:
        raw = s.stddev_ns;
        break;
    }
    return role == Qt::DisplayRole ? QVariant(microseconds(raw)) : QVariant(raw);
}

// Their headers, by the same index.
QString durationHeader(int which) {
    static const char* const headers[] = {"Count",         "Total (\u00b5s)", "Mean (\u00b5s)",   "Median (\u00b5s)",
                                          "Min (\u00b5s)", "Max (\u00b5s)",   "Std dev (\u00b5s)"};
    return which >= 0 && which < 7 ? QCoreApplication::translate("ps::ui::TimelineStats", headers[which]) : QString();
}

}  // namespace

QString microseconds(double ns) { return QLocale().toString(ns / 1e3, 'f', 3); }

// ---- NameStatsModel ------------------------------------------------------------------------

NameStatsModel::NameStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void NameStatsModel::setRows(std::vector<trace::NameStats> rows, bool memory, const QString& percentHeader) {
    beginResetModel();
    m_rows = std::move(rows);
    m_memory = memory;
    m_percentHeader = percentHeader;
    endResetModel();
}

int NameStatsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int NameStatsModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return m_memory ? ColumnCount : Bytes;
}

QVariant NameStatsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const trace::NameStats& s = m_rows[std::size_t(index.row())];
    const int column = index.column();
    if (role == Qt::TextAlignmentRole) return column == Name ? QVariant() : QVariant(int(kNumber));
    if (role == Qt::ToolTipRole && column == Name)
        return QStringLiteral("%1 (%2)").arg(QString::fromStdString(s.name), kindText(s.kind));
    if (role != Qt::DisplayRole && role != SortRole) return {};
    const bool display = role == Qt::DisplayRole;
    switch (column) {
    case Name:
        return QString::fromStdString(s.name);
    case Count:
    case Total:
    case Mean:
    case Median:
    case Min:
    case Max:
    case StdDev:
        return durationCell(s.time, column - Count, role);
    case Percent:
        return display ? QVariant(percentText(s.percent)) : QVariant(s.percent);
    case Bytes:
        return display ? QVariant(QLocale().toString(qulonglong(s.bytes))) : QVariant(qulonglong(s.bytes));
    case Bandwidth:
        return display ? QVariant(QLocale().toString(s.bandwidth_gbs, 'f', 2)) : QVariant(s.bandwidth_gbs);
    default:
        return {};
    }
}

QVariant NameStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Name");
    case Count:
    case Total:
    case Mean:
    case Median:
    case Min:
    case Max:
    case StdDev:
        return durationHeader(section - Count);
    case Percent:
        return m_percentHeader;
    case Bytes:
        return tr("Bytes");
    case Bandwidth:
        return tr("GB/s");
    default:
        return {};
    }
}

// ---- RowStatsModel -------------------------------------------------------------------------

RowStatsModel::RowStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RowStatsModel::setRows(std::vector<trace::RowStats> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int RowStatsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int RowStatsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RowStatsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const trace::RowStats& r = m_rows[std::size_t(index.row())];
    const int column = index.column();
    if (role == Qt::TextAlignmentRole) return column == Row ? QVariant() : QVariant(int(kNumber));
    if (role != Qt::DisplayRole && role != SortRole) return {};
    switch (column) {
    case Row:
        return QString::fromStdString(r.name);
    case Count:
    case Total:
    case Mean:
    case Median:
    case Min:
    case Max:
        return durationCell(r.time, column - Count, role);
    case Percent:
        return role == Qt::DisplayRole ? QVariant(percentText(r.percent)) : QVariant(r.percent);
    default:
        return {};
    }
}

QVariant RowStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Row:
        return tr("Row");
    case Count:
    case Total:
    case Mean:
    case Median:
    case Min:
    case Max:
        return durationHeader(section - Count);
    case Percent:
        return tr("% of range");
    default:
        return {};
    }
}

// ---- LevelDiffModel ------------------------------------------------------------------------

LevelDiffModel::LevelDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void LevelDiffModel::setRows(std::vector<trace::LevelDiffRow> rows, const QString& labelA, const QString& labelB) {
    beginResetModel();
    m_rows = std::move(rows);
    m_labelA = labelA;
    m_labelB = labelB;
    endResetModel();
}

std::optional<double> LevelDiffModel::value(const trace::LevelDiffRow& row, int column) {
    auto gap = [](const std::optional<trace::LevelSide>& s) -> std::optional<double> {
        if (!s || !s->gap_before_ns) return std::nullopt;
        return double(*s->gap_before_ns);
    };
    auto edges = [](const std::optional<trace::LevelSide>& s) -> std::optional<double> {
        if (!s || !s->edges) return std::nullopt;
        return double(*s->edges);
    };
    switch (column) {
    case Level:
        return double(row.level);
    case TimeA:
        return row.a ? std::optional(double(row.a->time_ns)) : std::nullopt;
    case GapA:
        return gap(row.a);
    case EdgesA:
        return edges(row.a);
    case MtepsA:
        return row.a ? row.a->mteps : std::nullopt;
    case TimeB:
        return row.b ? std::optional(double(row.b->time_ns)) : std::nullopt;
    case GapB:
        return gap(row.b);
    case EdgesB:
        return edges(row.b);
    case MtepsB:
        return row.b ? row.b->mteps : std::nullopt;
    case Diff:
        if (!row.a || !row.b) return std::nullopt;
        return double(row.b->time_ns - row.a->time_ns);
    case DiffWithGap:
        if (!row.a || !row.b) return std::nullopt;
        return double(row.b->time_ns + row.b->gap_before_ns.value_or(0) - row.a->time_ns -
                      row.a->gap_before_ns.value_or(0));
    default:
        return std::nullopt;
    }
}

int LevelDiffModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int LevelDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LevelDiffModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    if (role == Qt::TextAlignmentRole) return int(kNumber);
    const auto v = value(m_rows[std::size_t(index.row())], index.column());
    if (role == SortRole) return v ? QVariant(*v) : QVariant();
    if (role != Qt::DisplayRole || !v) return {};
    if (index.column() == Level) return int(*v);
    if (index.column() == EdgesA || index.column() == EdgesB) return QLocale().toString(qulonglong(*v));
    if (index.column() == MtepsA || index.column() == MtepsB) return QLocale().toString(*v, 'g', 4);
    const QString text = microseconds(*v);
    // Differences carry their sign: + where B takes longer.
    return (index.column() >= Diff && *v > 0) ? QStringLiteral("+") + text : text;
}

QVariant LevelDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Diff:
            return tr("%1's time minus %2's (negative: %1 is faster at that level)").arg(m_labelB, m_labelA);
        case DiffWithGap:
            return tr("The same, each time with the gap before the level (its launch)");
        case MtepsA:
        case MtepsB:
            return tr("The level's edges visited over its time, in millions per second");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case Level:
        return tr("Level");
    case TimeA:
        return tr("Time A (\u00b5s)");
    case GapA:
        return tr("Gap before A (\u00b5s)");
    case EdgesA:
        return tr("Edges A");
    case MtepsA:
        return tr("MTEPS A");
    case TimeB:
        return tr("Time B (\u00b5s)");
    case GapB:
        return tr("Gap before B (\u00b5s)");
    case EdgesB:
        return tr("Edges B");
    case MtepsB:
        return tr("MTEPS B");
    case Diff:
        return tr("B \u2212 A (\u00b5s)");
    case DiffWithGap:
        return tr("B \u2212 A with gaps (\u00b5s)");
    default:
        return {};
    }
}

}  // namespace ps::ui
