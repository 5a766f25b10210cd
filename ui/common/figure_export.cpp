// Figure and data export (see figure_export.hpp).
#include "ui/common/figure_export.hpp"

#include <qcustomplot.h>

#include <QBuffer>
#include <QFileDialog>
#include <QFileInfo>
#include <QImageWriter>
#include <QMessageBox>
#include <QPdfWriter>
#include <QPointer>
#include <QSaveFile>
#include <QSvgGenerator>
#include <functional>
#include <sstream>
#include <vector>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "instrumentation/output/chrome_trace.hpp"
#include "ui/common/async.hpp"

namespace ps::ui {

namespace {

constexpr const char* kBackgroundProperty = "pathscopeBackground";

struct PlotColours {
    QColor background, text, axis, grid, subGrid, legendBackground, legendBorder;
};

PlotColours coloursFor(bool dark) {
    if (dark)
        return {QColor(0x1e1f22), QColor(0xdcdcdc), QColor(0x9a9da3), QColor(0x3a3c40),
                QColor(0x2c2e31), QColor(0x26282b), QColor(0x4a4c50)};
    return {Qt::white,        QColor(0x202124), QColor(0x505357), QColor(0xe3e5e8),
            QColor(0xf1f2f4), QColor(0xffffff), QColor(0xc8cacd)};
}

// Sets a property and remembers how to put it back: the paper palette is worn only for the
// length of one export.
class Undo {
public:
    template <class Getter, class Setter, class Value>
    void set(Getter get, Setter put, const Value& value) {
        auto old = get();
        m_steps.push_back([put, old] { put(old); });
        put(value);
    }
    void restore() {
        for (auto it = m_steps.rbegin(); it != m_steps.rend(); ++it) (*it)();
        m_steps.clear();
    }

private:
    std::vector<std::function<void()>> m_steps;
};

// Applies the colours to everything themable in the plot, recording the old ones in `undo`.
void applyColours(QCustomPlot* plot, const PlotColours& c, Undo& undo) {
    // QCustomPlot has no getter for its background brush: a property on the plot remembers it.
    undo.set(
        [plot] {
            const QVariant stored = plot->property(kBackgroundProperty);
            return stored.isValid() ? stored.value<QBrush>() : QBrush(Qt::white);
        },
        [plot](const QBrush& b) {
            plot->setBackground(b);
            plot->setProperty(kBackgroundProperty, QVariant::fromValue(b));
        },
        QBrush(c.background));
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
        if (auto* rect = dynamic_cast<QCPAxisRect*>(element)) {
            undo.set([rect] { return rect->backgroundBrush(); }, [rect](const QBrush& b) { rect->setBackground(b); },
                     QBrush(Qt::NoBrush));
            for (QCPAxis* axis : rect->axes()) {
                QPen line = axis->basePen();
                line.setColor(c.axis);
                undo.set([axis] { return axis->basePen(); }, [axis](const QPen& p) { axis->setBasePen(p); }, line);
                undo.set([axis] { return axis->tickPen(); }, [axis](const QPen& p) { axis->setTickPen(p); }, line);
                undo.set([axis] { return axis->subTickPen(); }, [axis](const QPen& p) { axis->setSubTickPen(p); },
                         line);
                undo.set([axis] { return axis->labelColor(); }, [axis](const QColor& k) { axis->setLabelColor(k); },
                         c.text);
                undo.set([axis] { return axis->tickLabelColor(); },
                         [axis](const QColor& k) { axis->setTickLabelColor(k); }, c.text);
                QCPGrid* grid = axis->grid();
                QPen gridPen = grid->pen();
                gridPen.setColor(c.grid);
                undo.set([grid] { return grid->pen(); }, [grid](const QPen& p) { grid->setPen(p); }, gridPen);
                QPen subPen = grid->subGridPen();
                subPen.setColor(c.subGrid);
                undo.set([grid] { return grid->subGridPen(); }, [grid](const QPen& p) { grid->setSubGridPen(p); },
                         subPen);
            }
        } else if (auto* legend = dynamic_cast<QCPLegend*>(element)) {
            undo.set([legend] { return legend->brush(); }, [legend](const QBrush& b) { legend->setBrush(b); },
                     QBrush(c.legendBackground));
            undo.set([legend] { return legend->borderPen(); }, [legend](const QPen& p) { legend->setBorderPen(p); },
                     QPen(c.legendBorder));
            for (int i = 0; i < legend->itemCount(); ++i) {
                QCPAbstractLegendItem* item = legend->item(i);
                undo.set([item] { return item->textColor(); }, [item](const QColor& k) { item->setTextColor(k); },
                         c.text);
            }
            undo.set([legend] { return legend->textColor(); }, [legend](const QColor& k) { legend->setTextColor(k); },
                     c.text);
        } else if (auto* text = dynamic_cast<QCPTextElement*>(element)) {
            undo.set([text] { return text->textColor(); }, [text](const QColor& k) { text->setTextColor(k); }, c.text);
        }
    }
}

// Wears the paper palette (and, for plottables with their own colours, their light ones) while alive.
class PaperPalette {
public:
    explicit PaperPalette(QCustomPlot* plot) {
        applyColours(plot, coloursFor(false), m_undo);
        for (int i = 0; i < plot->plottableCount(); ++i)
            if (auto* own = dynamic_cast<OwnPalette*>(plot->plottable(i)))
                m_undo.set([own] { return own->isPaperPalette(); }, [own](bool on) { own->setPaperPalette(on); }, true);
    }
    ~PaperPalette() { m_undo.restore(); }
    PaperPalette(const PaperPalette&) = delete;
    PaperPalette& operator=(const PaperPalette&) = delete;

private:
    Undo m_undo;
};

// A title row above and a provenance row below the plot, removed again when done.
class FigureText {
public:
    FigureText(QCustomPlot* plot, const FigureOptions& options) : m_plot(plot) {
        QCPLayoutGrid* layout = plot->plotLayout();
        if (!options.title.isEmpty()) {
            layout->insertRow(0);
            // The application's font, not the plot's: lecture mode enlarges that one, and the
            // title lines would no longer fit the figure's width.
            QFont font;
            font.setPointSizeF(options.largeType ? std::max(font.pointSizeF() * 1.05, 16.0) : font.pointSizeF() * 1.05);
            m_title = new QCPTextElement(plot, options.title, font);
            m_title->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
            layout->addElement(0, 0, m_title);
        }
        if (!options.provenance.isEmpty()) {
            layout->insertRow(layout->rowCount());
            QFont font;
            font.setPointSizeF(options.largeType ? std::max(font.pointSizeF(), 14.0) : font.pointSizeF() * 0.85);
            m_provenance = new QCPTextElement(plot, options.provenance, font);
            m_provenance->setTextFlags(Qt::AlignRight | Qt::AlignVCenter);
            m_provenance->setTextColor(QColor(0x606368));
            layout->addElement(layout->rowCount() - 1, 0, m_provenance);
        }
    }
    ~FigureText() {
        QCPLayoutGrid* layout = m_plot->plotLayout();
        // remove() deletes the element; simplify() drops the rows they leave empty.
        if (m_title) layout->remove(m_title);
        if (m_provenance) layout->remove(m_provenance);
        layout->simplify();
    }
    FigureText(const FigureText&) = delete;
    FigureText& operator=(const FigureText&) = delete;

private:
    QCustomPlot* m_plot;
    QCPTextElement* m_title = nullptr;
    QCPTextElement* m_provenance = nullptr;
};

// Vector output: the painter draws through QCustomPlot's own pipeline without pixmap caches.
void paintVector(QCustomPlot* plot, QPaintDevice* device, int width, int height) {
    QCPPainter painter(device);
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setWindow(0, 0, width, height);
    plot->toPainter(&painter, width, height);
    painter.end();
}

}  // namespace

bool exportFailed(QString* error, const QString& text) {
    if (error) *error = text;
    return false;
}

FigureFormat figureFormat(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) return FigureFormat::Png;
    if (suffix == QLatin1String("pdf")) return FigureFormat::Pdf;
    if (suffix == QLatin1String("svg")) return FigureFormat::Svg;
    if (suffix == QLatin1String("csv")) return FigureFormat::Csv;
    if (suffix == QLatin1String("json")) return FigureFormat::Json;
    return FigureFormat::Unknown;
}

bool isDarkPalette(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

void applyPlotTheme(QCustomPlot* plot, bool dark) {
    Undo permanent;  // nothing to restore: the theme stays
    applyColours(plot, coloursFor(dark), permanent);
}

bool renderFigure(QCustomPlot* plot, FigureFormat format, const FigureOptions& options, QByteArray* out,
                  QString* error) {
    if (!plot || !out) return exportFailed(error, QObject::tr("nothing to export"));
    const int width = options.width > 0 ? options.width : std::max(plot->width(), 200);
    const int height = options.height > 0 ? options.height : std::max(plot->height(), 150);
    PaperPalette paper(plot);
    FigureText text(plot, options);
    out->clear();
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    switch (format) {
    case FigureFormat::Png: {
        const double scale = options.dpi > 0 ? options.dpi / 96.0 : std::max(options.scale, 0.1);
        QImage image = plot->toPixmap(width, height, scale).toImage();
        const int dpi = options.dpi > 0 ? options.dpi : int(std::lround(96 * scale));
        image.setDotsPerMeterX(int(std::lround(dpi / 0.0254)));
        image.setDotsPerMeterY(int(std::lround(dpi / 0.0254)));
        QImageWriter writer(&buffer, "png");
        if (!writer.write(image)) return exportFailed(error, writer.errorString());
        break;
    }
    case FigureFormat::Pdf: {
        QPdfWriter pdf(&buffer);
        pdf.setCreator(QStringLiteral("PathScope"));
        pdf.setTitle(options.title.section(QLatin1Char('\n'), 0, 0));
        // One PDF point per logical pixel: the page is exactly the figure.
        pdf.setPageLayout(QPageLayout(QPageSize(QSizeF(width, height), QPageSize::Point), QPageLayout::Portrait,
                                      QMarginsF(0, 0, 0, 0)));
        paintVector(plot, &pdf, width, height);
        break;
    }
    case FigureFormat::Svg: {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle(options.title.section(QLatin1Char('\n'), 0, 0));
        svg.setDescription(options.provenance);
        paintVector(plot, &svg, width, height);
        break;
    }
    default:
        return exportFailed(error, QObject::tr("a figure is exported as .png, .pdf or .svg"));
    }
    if (out->isEmpty()) return exportFailed(error, QObject::tr("the figure came out empty"));
    return true;
}

bool writeFileBytes(const QString& path, const QByteArray& bytes, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return exportFailed(error, QObject::tr("cannot write %1: %2").arg(path, file.errorString()));
    return true;
}

bool exportFigure(QCustomPlot* plot, const QString& path, const FigureOptions& options, QString* error) {
    QByteArray bytes;
    return renderFigure(plot, figureFormat(path), options, &bytes, error) && writeFileBytes(path, bytes, error);
}

void saveWithDialog(QWidget* parent, const QString& suggestedName, const QString& filters,
                    const RenderToBytes& render) {
    const QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export"), suggestedName, filters);
    if (path.isEmpty()) return;
    QByteArray bytes;
    QString error;
    if (!render(path, &bytes, &error)) {
        QMessageBox::warning(parent, QObject::tr("Export"), error);
        return;
    }
    QPointer<QWidget> guard(parent);
    runAsync(
        parent,
        [path, bytes] {
            QString failure;
            writeFileBytes(path, bytes, &failure);
            return failure;
        },
        [guard](const QString& failure) {
            if (!failure.isEmpty() && guard) QMessageBox::warning(guard, QObject::tr("Export"), failure);
        });
}

bool timelineDataBytes(const trace::Timeline& timeline, const trace::Provenance& provenance, FigureFormat format,
                       QByteArray* out, QString* error) {
    std::ostringstream text;
    if (format == FigureFormat::Csv)
        trace::write_csv(timeline, text);
    else if (format == FigureFormat::Json)
        trace::write_chrome_trace(timeline, provenance, text);
    else
        return exportFailed(error, QObject::tr("timeline data is exported as .csv or .json"));
    *out = QByteArray::fromStdString(text.str());
    return true;
}

QString provenanceText(const trace::Provenance& p) {
    QStringList parts;
    for (const std::string* field : {&p.map, &p.variant, &p.device, &p.build})
        if (!field->empty()) parts << QString::fromStdString(*field);
    return parts.join(QStringLiteral(" · "));
}

// ---- Headless exports ------------------------------------------------------------------------

trace::Provenance runProvenance(const db::RunRow& row) {
    trace::Provenance p;
    p.variant = row.info.variant;
    p.map = row.map_name + ' ' + std::to_string(row.map_width) + 'x' + std::to_string(row.map_height);
    p.device = row.info.device_name;
    p.build = "build " + row.info.build_commit + (row.info.host.empty() ? "" : " on " + row.info.host) + ", run " +
              std::to_string(row.id) + ", " + db::format_utc(row.created_unix_ms) + " UTC";
    return p;
}

}  // namespace ps::ui
