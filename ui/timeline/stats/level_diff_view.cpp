// The per-level difference of two runs (see level_diff_view.hpp).
#include "ui/timeline/stats/level_diff_view.hpp"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <sstream>

#include "instrumentation/timeline/timeline_layout.hpp"
#include "kernels/run/edges_visited.hpp"
#include "ui/common/figure_export.hpp"
#include "ui/timeline/stats/timeline_stats_model.hpp"
#include "ui/timeline/timeline_plottable.hpp"

namespace ps::ui {

namespace {

// Run A blue, run B orange (the colours of the compare dialog's two runs); gaps dashed.
const QColor kColourA(0x2f7ed8), kColourB(0xe8743b);

}  // namespace

LevelDiffView::LevelDiffView(QWidget* parent)
    : QWidget(parent),
      m_model(new LevelDiffModel(this)),
      m_sorted(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)),
      m_plot(new QCustomPlot(this)),
      m_plotChoice(new QComboBox(this)),
      m_summary(new QLabel(this)),
      m_mapNote(new QLabel(this)) {
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(LevelDiffModel::SortRole);
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(LevelDiffModel::Level, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    m_plot->xAxis->setLabel(tr("level"));
    m_plot->yAxis->setLabel(tr("\u00b5s"));
    m_plot->legend->setVisible(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->setMinimumSize(240, 160);
    struct Series {
        QColor colour;
        Qt::PenStyle style;
    };
    for (const Series& s : {Series{kColourA, Qt::SolidLine}, Series{kColourB, Qt::SolidLine},
                            Series{kColourA, Qt::DashLine}, Series{kColourB, Qt::DashLine}}) {
        QCPGraph* g = m_plot->addGraph();
        g->setPen(QPen(s.colour, 1.5, s.style));
        g->setLineStyle(QCPGraph::lsStepCenter);
    }
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_mapNote->setWordWrap(true);
    m_mapNote->setStyleSheet(QStringLiteral("color: #b8860b;"));  // the amber of a warning, on light and dark
    m_plotChoice->addItem(tr("Time per level"), int(PlotTimes));
    m_plotChoice->addItem(tr("MTEPS per level"), int(PlotMteps));
    m_plotChoice->setToolTip(tr("MTEPS: the level's edges visited over its time (BFS runs)"));
    connect(m_plotChoice, &QComboBox::currentIndexChanged, this, &LevelDiffView::replot);

    auto* save = new QPushButton(tr("Export CSV\u2026"), this);
    save->setToolTip(tr("level, time and gap before it in A and B, B \u2212 A (ns)"));
    connect(save, &QPushButton::clicked, this, &LevelDiffView::exportDialog);
    auto* header = new QHBoxLayout;
    header->addWidget(m_summary, 1);
    header->addWidget(m_plotChoice, 0, Qt::AlignTop);
    header->addWidget(save, 0, Qt::AlignTop);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_plot);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(header);
    layout->addWidget(m_mapNote);
    layout->addWidget(split, 1);
    applyPlotTheme(m_plot, isDarkPalette(palette()));
    setRuns(nullptr, nullptr);
}

void LevelDiffView::setRuns(TimelineModelPtr a, TimelineModelPtr b) {
    const bool both = a && b && a->timeline && b->timeline;
    m_labelA = both && !a->label.isEmpty() ? a->label : tr("A");
    m_labelB = both && !b->label.isEmpty() ? b->label : tr("B");
    std::vector<trace::LevelDiffRow> rows;
    if (both) rows = level_diff_with_rates(*a->timeline, a->facts.levelEdges, *b->timeline, b->facts.levelEdges);
    const bool rates = std::any_of(rows.begin(), rows.end(), [](const trace::LevelDiffRow& r) {
        return (r.a && r.a->mteps) || (r.b && r.b->mteps);
    });
    m_model->setRows(std::move(rows), m_labelA, m_labelB);
    // Edges and MTEPS where a run's level edges are known (BFS runs).
    for (int column : {LevelDiffModel::EdgesA, LevelDiffModel::MtepsA, LevelDiffModel::EdgesB, LevelDiffModel::MtepsB})
        m_table->setColumnHidden(column, !rates);
    m_plotChoice->setVisible(rates);
    if (!rates) m_plotChoice->setCurrentIndex(0);
    // Levels correspond only on one map (with one start): said, not refused, as `trace diff` does.
    const bool otherMaps =
        both && !a->facts.mapHash.empty() && !b->facts.mapHash.empty() && a->facts.mapHash != b->facts.mapHash;
    m_mapNote->setText(otherMaps ? tr("%1 and %2 are on different maps (%3, %4): their levels need not correspond.")
                                       .arg(m_labelA, m_labelB, QString::fromStdString(a->facts.mapName),
                                            QString::fromStdString(b->facts.mapName))
                                 : QString());
    m_mapNote->setVisible(otherMaps);
    m_summary->setText(both ? summaryText()
                            : tr("Compare two runs (select two in the History) to see their "
                                 "per-level difference."));
    replot();
}

QComboBox* LevelDiffView::plotChoice() const { return m_plotChoice; }

QString LevelDiffView::mapNote() const { return m_mapNote->text(); }

const std::vector<trace::LevelDiffRow>& LevelDiffView::rows() const { return m_model->rows(); }

LevelDiffModel* LevelDiffView::model() const { return m_model; }

QTableView* LevelDiffView::table() const { return m_table; }

QCustomPlot* LevelDiffView::plot() const { return m_plot; }

QString LevelDiffView::summaryText() const {
    const auto& rows = m_model->rows();
    if (rows.empty()) return tr("Neither run has levels on its timeline.");
    std::int64_t timeA = 0, gapA = 0, timeB = 0, gapB = 0;
    int both = 0, bFaster = 0;
    for (const trace::LevelDiffRow& r : rows) {
        if (!r.a || !r.b) continue;
        ++both;
        timeA += r.a->time_ns;
        gapA += r.a->gap_before_ns.value_or(0);
        timeB += r.b->time_ns;
        gapB += r.b->gap_before_ns.value_or(0);
        if (r.b->time_ns + r.b->gap_before_ns.value_or(0) < r.a->time_ns + r.a->gap_before_ns.value_or(0)) ++bFaster;
    }
    auto ms = [](std::int64_t ns) { return QString::fromStdString(trace::format_duration(ns)); };
    const std::int64_t diff = timeB + gapB - timeA - gapA;
    return tr("A = %1, B = %2. %3 levels in both (of %4): A %5 in levels + %6 in gaps, B %7 + %8; "
              "B \u2212 A %9%10 (levels %11%12, gaps %13%14); B is faster at %15 of them, gap included.")
        .arg(m_labelA, m_labelB)
        .arg(both)
        .arg(rows.size())
        .arg(ms(timeA), ms(gapA), ms(timeB), ms(gapB))
        .arg(diff < 0 ? QStringLiteral("\u2212") : QStringLiteral("+"), ms(std::abs(diff)))
        .arg(timeB < timeA ? QStringLiteral("\u2212") : QStringLiteral("+"), ms(std::abs(timeB - timeA)))
        .arg(gapB < gapA ? QStringLiteral("\u2212") : QStringLiteral("+"), ms(std::abs(gapB - gapA)))
        .arg(bFaster);
}

void LevelDiffView::replot() {
    const auto& rows = m_model->rows();
    const bool mteps = m_plotChoice->currentData().toInt() == PlotMteps;
    // Graphs 0 and 1 are A and B (solid), 2 and 3 their gaps before (dashed; unused for MTEPS).
    const int times[4] = {LevelDiffModel::TimeA, LevelDiffModel::TimeB, LevelDiffModel::GapA, LevelDiffModel::GapB};
    const int rates[4] = {LevelDiffModel::MtepsA, LevelDiffModel::MtepsB, -1, -1};
    const QString names[4] = {mteps ? tr("MTEPS %1").arg(m_labelA) : tr("time %1").arg(m_labelA),
                              mteps ? tr("MTEPS %1").arg(m_labelB) : tr("time %1").arg(m_labelB),
                              tr("gap before, %1").arg(m_labelA), tr("gap before, %1").arg(m_labelB)};
    m_plot->yAxis->setLabel(mteps ? tr("MTEPS") : tr("\u00b5s"));
    for (int g = 0; g < 4; ++g) {
        const int column = mteps ? rates[g] : times[g];
        QCPGraph* graph = m_plot->graph(g);
        graph->setName(names[g]);
        graph->setVisible(column >= 0);
        if (column >= 0)
            graph->addToLegend();
        else
            graph->removeFromLegend();
        QVector<double> keys, values;
        keys.reserve(qsizetype(rows.size()));
        values.reserve(qsizetype(rows.size()));
        for (const trace::LevelDiffRow& r : rows) {
            const auto v = column >= 0 ? LevelDiffModel::value(r, column) : std::nullopt;
            if (!v) continue;
            keys << double(r.level);
            values << (mteps ? *v : *v / 1e3);  // times in ns, shown in us
        }
        graph->setData(keys, values, true);
    }
    m_plot->rescaleAxes();
    // From zero, with room above the highest point; the levels' steps whole at either end.
    const double top = m_plot->yAxis->range().upper;
    m_plot->yAxis->setRange(0, top > 0 ? top * 1.08 : 1);
    const QCPRange x = m_plot->xAxis->range();
    m_plot->xAxis->setRange(x.lower - 0.5, x.upper + 0.5);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QByteArray LevelDiffView::csv() const {
    std::ostringstream out;
    trace::write_level_diff_csv(m_model->rows(), out);
    return QByteArray::fromStdString(out.str());
}

bool LevelDiffView::exportCsv(const QString& path, QString* error) const { return writeFileBytes(path, csv(), error); }

void LevelDiffView::exportDialog() {
    saveWithDialog(this, QStringLiteral("level-diff.csv"), tr("CSV (*.csv)"),
                   [this](const QString&, QByteArray* bytes, QString*) {
                       *bytes = csv();
                       return true;
                   });
}

void LevelDiffView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(m_plot, isDarkPalette(palette()));
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

}  // namespace ps::ui
