// One QCustomPlot plottable per timeline: paints a trace::TimelineLayout's rows (one value-axis
// unit per row, from firstRow down), drawing only the visible time range and merging items
// closer than a pixel (trace::merge_spans), so 100,000 events cost at most about one rectangle
// per pixel column and row: never one QCP item per event. Colours by event kind, hatched GPU
// gaps with their length, agent load rows as heat strips, the selected event and its
// correlated API call / GPU item outlined, a highlighted set (a summary row's items, search
// matches) drawn over a veil that dims the rest, and a cursor at a level's start.
// This header includes qcustomplot.h (a plottable must derive from its classes), so only .cpp
// files include it; widget headers forward-declare TimelinePlottable. No Q_OBJECT: it has no
// signals, and moc would otherwise pull qcustomplot.h into the moc compilation unit too.
#pragma once

#include <qcustomplot.h>

#include <QColor>
#include <QFont>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "instrumentation/timeline/timeline_layout.hpp"
#include "ui/common/figure_export.hpp"

namespace ps::ui {

// The colours of a timeline; light() is also the paper palette of exported figures.
struct TimelinePalette {
    QColor background, text, separator;
    QColor kernel, memcpy, memset, api, apiBlocking, sync, level, levelAlt, tailLevel, tailLevelAlt, phase, overhead;
    QColor agentLoad;  // a lane's heat strip at its group's peak load; fainter for fewer agents
    QColor nvtx[4];    // by nesting depth, cycling
    QColor gapFill, gapText, highlight, partner, cursor;

    static TimelinePalette light();
    static TimelinePalette dark();
    QColor colourOf(const trace::Event& event, std::int32_t depth) const;
    // Heat strip colour of `load` agents in flight on a scale up to `peak` (in 16 steps, so a
    // row draws with a few brushes).
    QColor loadColour(double load, double peak) const;
};

// What the per-level difference reads of a run beside its timeline; empty where unknown.
struct TimelineRunFacts {
    std::vector<std::uint64_t> levelEdges;  // a BFS run's edges visited per level (edges_visited.hpp)
    std::string mapHash, mapName;           // the map it searched (db::MapInfo's hash and name)
};

// One run as the view shows it: the timeline, its layout, summary line, label and facts.
// Immutable once made, shared by the plottable that paints it and the widget that hit-tests it.
// Making one is pure computation (about 45 ms for 100,000 events): loaders make it off the GUI
// thread.
struct TimelineModel {
    std::shared_ptr<const trace::Timeline> timeline;
    trace::TimelineLayout layout;
    std::string summary;  // trace::summary_line, and the note on a line of its own
    QString label;
    TimelineRunFacts facts;
};
using TimelineModelPtr = std::shared_ptr<const TimelineModel>;
// `note`: a further summary line, e.g. a batch run's agent load (trace::describe(AgentLoadSummary)).
TimelineModelPtr makeTimelineModel(std::shared_ptr<const trace::Timeline> timeline, const QString& label,
                                   const std::string& note = {}, TimelineRunFacts facts = {});

// "ps::gpu::bfs::level_kernel(int*, int)" -> "level_kernel": what fits in a bar.
QString shortEventName(const std::string& name);

class TimelinePlottable : public QCPAbstractPlottable, public OwnPalette {
public:
    TimelinePlottable(QCPAxis* keyAxis, QCPAxis* valueAxis);

    void setModel(TimelineModelPtr model, int firstRow);
    const TimelineModelPtr& model() const { return m_model; }
    int firstRow() const { return m_firstRow; }
    int rowCount() const;

    void setPalette(const TimelinePalette& palette) { m_palette = palette; }
    const TimelinePalette& palette() const { return m_palette; }
    // Exports wear the light palette (the screen one comes back afterwards).
    bool isPaperPalette() const override { return m_paper; }
    void setPaperPalette(bool on) override {
        if (on == m_paper) return;
        if (on)
            m_screenPalette = std::exchange(m_palette, TimelinePalette::light());
        else
            m_palette = m_screenPalette;
        m_paper = on;
    }
    // Lecture mode: thicker outlines and cursor, larger labels.
    void setLineScale(double scale) { m_lineScale = scale; }
    void setLabelFont(const QFont& font) { m_labelFont = font; }

    // Outlines `event` and its correlation partner; nullopt clears.
    void setSelectedEvent(std::optional<std::uint32_t> event) { m_selected = event; }
    std::optional<std::uint32_t> selectedEvent() const { return m_selected; }
    // Events to pick out (a summary row's items, search matches): the rest of the run is dimmed
    // and these drawn over the veil with an outline, merged per pixel as the rows are (so a set
    // of 100,000 costs no more than a row). Empty: none. Sorted and deduplicated here.
    void setHighlighted(std::vector<std::uint32_t> events);
    const std::vector<std::uint32_t>& highlighted() const { return m_highlighted; }
    // Outlined spans the last draw() made for the highlighted set (tests check the bound).
    std::size_t lastHighlightSpans() const { return m_lastHighlightSpans; }
    // A vertical line at `relativeNs` over this run's rows, with a caption; nullopt hides it.
    void setCursor(std::optional<double> relativeNs, const QString& text = {});
    std::optional<double> cursor() const { return m_cursorNs; }

    // Level windows (TimelineWidget::setLevelWindow): this run's time `relative` is drawn at
    // axis coordinate relative - shift, so that each run of a comparison can start at its own
    // level; only [window.first, window.second] (relative ns) of it is drawn.
    void setShift(double shiftNs) { m_shiftNs = shiftNs; }
    double shift() const { return m_shiftNs; }
    void setWindow(std::optional<std::pair<double, double>> relativeWindow) { m_window = relativeWindow; }
    const std::optional<std::pair<double, double>>& window() const { return m_window; }
    // Slide figures: every gap gets its length (above or below its bar where it does not fit
    // inside), and launches are marked: a line from each host launch call to its kernel, a
    // diamond at each level the device launched.
    void setAnnotateLaunches(bool on) { m_annotate = on; }
    // What the last draw() labelled and marked (tests read them).
    const QStringList& lastGapLabels() const { return m_lastGapLabels; }
    int lastHostLaunchMarks() const { return m_lastHostMarks; }
    int lastDeviceLaunchMarks() const { return m_lastDeviceMarks; }

    struct Hit {
        int row = 0;           // row within this plottable
        std::uint32_t id = 0;  // event index, or gap index when `gap`
        bool gap = false;
    };
    // What is under `pixel` (plot widget coordinates), within `tolerancePx` along the time axis.
    std::optional<Hit> hitAt(const QPointF& pixel, double tolerancePx) const;
    // The row (within this plottable) at a pixel's height, or -1.
    int rowAt(double y) const;

    // Spans drawn per row by the last draw(): tests check the merging bound with them.
    const std::vector<std::size_t>& lastSpanCounts() const { return m_lastSpanCounts; }

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    trace::TimeAxis timeAxis() const;
    double rowHeightPx() const;
    void drawRow(QCPPainter* painter, const trace::Row& row, int index, const trace::TimeAxis& axis);
    void drawLoadRow(QCPPainter* painter, const trace::Row& row, const std::vector<trace::DrawSpan>& spans,
                     const QRectF& band);
    void drawGapLabels(QCPPainter* painter, const trace::Row& row, const std::vector<trace::DrawSpan>& spans,
                       const QRectF& band);
    void drawHighlight(QCPPainter* painter, std::uint32_t event, const QColor& colour, const trace::TimeAxis& axis);
    void drawHighlightedSet(QCPPainter* painter, const trace::TimeAxis& axis);
    void drawCursor(QCPPainter* painter);
    void drawLaunchMarks(QCPPainter* painter, const trace::TimeAxis& axis);
    // The axis rect narrowed to this run's window, in pixels.
    QRect windowClip() const;

    TimelineModelPtr m_model;
    int m_firstRow = 0;
    TimelinePalette m_palette = TimelinePalette::light();
    TimelinePalette m_screenPalette;  // while an export wears the light one
    bool m_paper = false;
    double m_lineScale = 1.0;
    QFont m_labelFont;
    std::optional<std::uint32_t> m_selected;
    std::vector<std::uint32_t> m_highlighted;
    // The highlighted items of each row that has some, as the rows hold theirs (relative times),
    // so trace::merge_spans draws them as it draws the rows.
    std::vector<std::pair<std::uint32_t, trace::RowItems>> m_highlightRows;
    std::size_t m_lastHighlightSpans = 0;
    std::optional<double> m_cursorNs;
    QString m_cursorText;
    std::vector<std::size_t> m_lastSpanCounts;
    double m_shiftNs = 0;
    std::optional<std::pair<double, double>> m_window;
    bool m_annotate = false;
    QStringList m_lastGapLabels;
    int m_lastHostMarks = 0, m_lastDeviceMarks = 0;
};

}  // namespace ps::ui
