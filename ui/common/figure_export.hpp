// Figures out of any QCustomPlot (the timeline or a history plot): PNG with a scale and DPI, PDF
// and SVG as vectors (QPdfWriter / QSvgGenerator through QCPPainter), always in a light paper
// palette whatever the UI theme, with a title and a provenance line under the plot. Rendering
// happens where the plot lives (the GUI thread) into bytes; writing them is separate so the
// window can write off the GUI thread. Also the data files of a run: CSV and Chrome trace JSON.
#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <functional>

#include "instrumentation/timeline/timeline.hpp"

class QCustomPlot;
class QPalette;
class QWidget;

namespace ps::db {
struct RunRow;
}

namespace ps::ui {

enum class FigureFormat { Png, Pdf, Svg, Csv, Json, Unknown };
// From the file's suffix, case-insensitive.
FigureFormat figureFormat(const QString& path);

// Records why an export failed in `error` (may be null); false, for `return exportFailed(...)`.
bool exportFailed(QString* error, const QString& text);

struct FigureOptions {
    int width = 0, height = 0;  // logical pixels (points in a PDF); 0: the plot's current size
    double scale = 1.0;         // PNG only: pixels per logical pixel
    int dpi = 0;                // PNG only: > 0 sets scale = dpi / 96 and the file's resolution
    QString title;              // lines above the plot, empty: none
    QString provenance;         // a small line under the plot, empty: none
    bool largeType = false;     // slides: title 16 pt, provenance 14 pt (else the application's size)
};

// Colours for a plot on screen, following a light or dark UI (axes, grid, legend, text).
void applyPlotTheme(QCustomPlot* plot, bool dark);
// True when the widget palette is a dark one (Qt 6.4 has no colour-scheme query).
bool isDarkPalette(const QPalette& palette);

// Renders `plot` as PNG, PDF or SVG bytes in the paper palette. Must run on the plot's thread.
bool renderFigure(QCustomPlot* plot, FigureFormat format, const FigureOptions& options, QByteArray* out,
                  QString* error = nullptr);
// Writes atomically (QSaveFile): a failed write leaves an existing file untouched.
bool writeFileBytes(const QString& path, const QByteArray& bytes, QString* error = nullptr);
// renderFigure + writeFileBytes, format from the suffix (.png/.pdf/.svg).
bool exportFigure(QCustomPlot* plot, const QString& path, const FigureOptions& options, QString* error = nullptr);

// Asks for a file name (suggesting `suggestedName`), renders on the GUI thread through
// `render`, then writes the bytes off the GUI thread; failures are shown in a message box.
using RenderToBytes = std::function<bool(const QString& path, QByteArray* bytes, QString* error)>;
void saveWithDialog(QWidget* parent, const QString& suggestedName, const QString& filters, const RenderToBytes& render);

// A run's events as CSV (trace::write_csv) or Chrome trace JSON (trace::write_chrome_trace).
bool timelineDataBytes(const trace::Timeline& timeline, const trace::Provenance& provenance, FigureFormat format,
                       QByteArray* out, QString* error = nullptr);
// "map 512² noise · bfs.gpu.dp · NVIDIA H100 · build 1a2b3c": what a figure's provenance line says.
QString provenanceText(const trace::Provenance& provenance);
// The provenance of a stored run: its map and size, variant, device, build, host, id and date.
trace::Provenance runProvenance(const db::RunRow& row);

// A plottable with colours of its own (the timeline's rows), which an export switches to their
// light version for its length, as it does the plot's axes and legend.
class OwnPalette {
public:
    virtual ~OwnPalette() = default;
    virtual bool isPaperPalette() const = 0;
    virtual void setPaperPalette(bool on) = 0;
};

}  // namespace ps::ui
