// exportSpeedup (see speedup_export.hpp).
#include "ui/plots/speedup_export.hpp"

#include "ui/common/figure_export.hpp"
#include "ui/plots/plot_widget.hpp"

namespace ps::ui {

bool exportSpeedup(const QString& dbPath, const QString& runFilter, const QString& baseline, const QString& outFile,
                   QString* error, bool lecture) {
    const FigureFormat format = figureFormat(outFile);
    if (format == FigureFormat::Unknown || format == FigureFormat::Json)
        return exportFailed(error, QObject::tr("%1: use .png, .pdf, .svg or .csv").arg(outFile));
    SweepLoad load = loadSweep(dbPath, runFilter);
    if (!load.error.isEmpty()) return exportFailed(error, load.error);
    PlotWidget widget;
    widget.setLectureType(lecture);
    widget.setData(std::move(load.data));
    if (!baseline.isEmpty()) {
        if (!widget.variants().contains(baseline))
            return exportFailed(error, QObject::tr("baseline %1 is not among the runs (%2)")
                                           .arg(baseline, widget.variants().join(QStringLiteral(", "))));
        widget.setBaseline(baseline);
        widget.setMode(PlotWidget::Mode::Speedup);
    }
    return widget.exportTo(outFile, error);
}

}  // namespace ps::ui
