// The load-imbalance histogram of a batch run (issue 9): how many agents needed how many
// expansions (RunResult::agent_steps). One thread per agent waits for its slowest neighbour in
// the warp, so a long right tail is what the scheduling strategies fight. QCustomPlot bars;
// the binning is a pure function, tested without a widget.
#pragma once

#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

namespace ps::ui {

struct StepHistogram {
    double binWidth = 1;  // expansions per bin; bin i covers [i * width, (i + 1) * width)
    std::vector<std::uint64_t> counts;
    std::uint32_t min = 0, max = 0;
    double mean = 0, median = 0;
    // max / mean: 1 is perfect balance; a warp of 32 agents runs about as long as its longest.
    double imbalance() const { return mean > 0 ? double(max) / mean : 0; }
};

// `bins` equal bins from 0 to the largest value (at least width 1: small integers get one bin
// each). Empty counts for no values.
StepHistogram stepHistogram(const std::vector<std::uint32_t>& steps, int bins = 40);

class AgentStepsPlot : public QWidget {
    Q_OBJECT
public:
    explicit AgentStepsPlot(QWidget* parent = nullptr);
    ~AgentStepsPlot() override;

    // The histogram of `steps` titled `variant`; empty steps clear the plot.
    void setSteps(const std::vector<std::uint32_t>& steps, const QString& variant);
    const StepHistogram& histogram() const;
    QString summary() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

}  // namespace ps::ui
