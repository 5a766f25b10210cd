// AgentStepsPlot and stepHistogram (see agent_steps_plot.hpp).
#include "ui/crowd/agent_steps_plot.hpp"

#include <qcustomplot.h>

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace ps::ui {

StepHistogram stepHistogram(const std::vector<std::uint32_t>& steps, int bins) {
    StepHistogram h;
    if (steps.empty() || bins < 1) return h;
    std::vector<std::uint32_t> sorted = steps;
    std::sort(sorted.begin(), sorted.end());
    h.min = sorted.front();
    h.max = sorted.back();
    const std::size_t n = sorted.size();
    h.median = n % 2 ? sorted[n / 2] : 0.5 * (double(sorted[n / 2 - 1]) + double(sorted[n / 2]));
    h.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / double(n);
    h.binWidth = std::max(1.0, std::ceil((double(h.max) + 1) / bins));
    h.counts.assign(std::size_t(std::floor(double(h.max) / h.binWidth)) + 1, 0);
    for (std::uint32_t s : sorted) ++h.counts[std::size_t(std::floor(double(s) / h.binWidth))];
    return h;
}

struct AgentStepsPlot::Private {
    QCustomPlot* plot = nullptr;
    QCPBars* bars = nullptr;
    QLabel* summary = nullptr;
    StepHistogram histogram;
};

AgentStepsPlot::AgentStepsPlot(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>()) {
    d->plot = new QCustomPlot(this);
    d->plot->setMinimumHeight(140);
    d->bars = new QCPBars(d->plot->xAxis, d->plot->yAxis);
    d->bars->setPen(QPen(QColor(0x31, 0x82, 0xbd)));
    d->bars->setBrush(QColor(0x31, 0x82, 0xbd, 160));
    d->plot->xAxis->setLabel(tr("expansions per agent"));
    d->plot->yAxis->setLabel(tr("agents"));
    d->summary = new QLabel(this);
    d->summary->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(d->plot, 1);
    layout->addWidget(d->summary);
    setSteps({}, {});
}

AgentStepsPlot::~AgentStepsPlot() = default;

const StepHistogram& AgentStepsPlot::histogram() const { return d->histogram; }
QString AgentStepsPlot::summary() const { return d->summary->text(); }

void AgentStepsPlot::setSteps(const std::vector<std::uint32_t>& steps, const QString& variant) {
    d->histogram = stepHistogram(steps);
    const StepHistogram& h = d->histogram;
    QVector<double> keys, values;
    for (std::size_t i = 0; i < h.counts.size(); ++i) {
        keys << (double(i) + 0.5) * h.binWidth;
        values << double(h.counts[i]);
    }
    d->bars->setWidth(h.binWidth * 0.9);
    d->bars->setData(keys, values, true);
    if (h.counts.empty()) {
        d->summary->setText(tr("Select a batch.* result to see its per-agent expansions."));
        d->plot->xAxis->setRange(0, 1);
        d->plot->yAxis->setRange(0, 1);
    } else {
        const QLocale locale;
        d->summary->setText(tr("%1: %2 agents, expansions min %3 · median %4 · mean %5 · max %6 (max/mean %7)")
                                .arg(variant, locale.toString(qulonglong(steps.size())), locale.toString(h.min),
                                     locale.toString(h.median, 'f', 0), locale.toString(h.mean, 'f', 1),
                                     locale.toString(h.max), locale.toString(h.imbalance(), 'f', 2)));
        d->plot->xAxis->setRange(0, double(h.counts.size()) * h.binWidth);
        d->plot->yAxis->setRange(0, double(*std::max_element(h.counts.begin(), h.counts.end())) * 1.08);
    }
    d->plot->replot();
}

}  // namespace ps::ui
