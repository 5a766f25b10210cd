// The timeline view: a QCustomPlot showing one run's timeline (or two stacked on one time axis
// in compare mode, each aligned to its own first GPU item) through TimelinePlottable. Rows are
// labelled (host threads, NVTX nesting, synchronisation, GPU streams, device levels, GPU idle,
// host phases); wheel zooms at the cursor, dragging pans, right-drag (or Shift+drag) zooms to a
// box, Backspace undoes zooms; tooltips name what is under the mouse; clicking a kernel
// outlines its launching API call and the other way round, and says which level it belongs to
// (levelSelected), so the map can show that level. setCursorLevel draws the animation's level.
// Lecture mode: large fonts, thick lines, a caption saying what the current level's launch was,
// and one-key stepping through levels (Right/Left, PageDown/PageUp as presenter remotes send)
// that keeps a window of four levels around the cursor in view, each run of a comparison at
// its own level (setLevelWindow). The plot scrolls inside the view when its rows need more
// height than there is, so the caption below it never covers a row or the time axis.
// For GPU engineers, as Perfetto: Ctrl+drag selects a time range (a band with its start, end
// and length; TimelineStatsView shows its statistics), a highlighted set of items (a summary
// row's, search matches) over a dimmed rest, search by name (Ctrl+F, F3), W/S/A/D zoom and
// pan, and F1 or ? lists every key and gesture (shortcut_help.hpp).
#pragma once

#include <QString>
#include <QWidget>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "instrumentation/timeline/timeline.hpp"
#include "instrumentation/timeline/trace_stats.hpp"

class QCustomPlot;
class QDialog;
class QLabel;
class QKeyEvent;
class QMouseEvent;
class QWheelEvent;
class QRubberBand;

namespace ps::ui {

class TimelinePlottable;
class TimelineSearchBar;
struct TimelineModel;
using TimelineModelPtr = std::shared_ptr<const TimelineModel>;  // see timeline_plottable.hpp

// An event (or a gap, on the GPU idle row) of one of the shown runs.
struct TimelineHit {
    int run = 0;           // 0, or 1 for the second run in compare mode
    std::uint32_t id = 0;  // event index, or gap index when `gap`
    bool gap = false;
};

class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);
    ~TimelineWidget() override;

    // One run; a null timeline clears the view.
    void setTimeline(std::shared_ptr<const trace::Timeline> timeline, const QString& label);
    // Two runs stacked on one time axis, each aligned to its own first GPU item.
    void setComparison(std::shared_ptr<const trace::Timeline> a, const QString& labelA,
                       std::shared_ptr<const trace::Timeline> b, const QString& labelB);
    // One or two runs laid out already (makeTimelineModel, e.g. on a loader thread).
    void setModels(std::vector<TimelineModelPtr> models);
    void clear();
    // Clears the view and says why there is nothing to show (e.g. "run 4 was not traced").
    void showMessage(const QString& text);
    int runCount() const;
    std::shared_ptr<const trace::Timeline> timeline(int run = 0) const;
    QString runLabel(int run = 0) const;
    // The run as shown (timeline, label, facts), null for no such run.
    TimelineModelPtr model(int run = 0) const;

    QCustomPlot* plot() const;
    TimelinePlottable* plottable(int run = 0) const;
    // Map, variant, GPU and build: under exported figures, and in Chrome trace metadata.
    void setProvenance(const trace::Provenance& provenance);
    const trace::Provenance& provenance() const;
    // One line per run: trace::summary_line (GPU busy, idle, gaps with mean / p95, launches per level).
    QString summaryText() const;

    // ---- View (time is ns relative to each run's first GPU item) -------------------------
    double visibleBegin() const;
    double visibleEnd() const;
    // The whole trace, with a small margin.
    void resetZoom();
    // These push the previous range on the undo stack.
    void zoomToRange(double beginNs, double endNs);
    void zoomAt(double factor, double anchorPx);  // anchorPx: from the axis rect's left edge
    void panBy(double dxPx);
    bool undoZoom();
    int undoDepth() const;
    // Keeps the span, centred on `run`'s event (its middle); one undo step.
    void centerOnEvent(int run, std::uint32_t event);

    // ---- Keyboard navigation (Perfetto's W/S/A/D) ----------------------------------------
    // W zooms in by this factor (the span shrinks to 1 / kKeyZoomFactor), S out by it, at the
    // mouse when it is over the plot, else at the view's centre; A / D pan left / right by
    // kKeyPanFraction of the view. Key presses less than 600 ms apart are one undo step.
    static constexpr double kKeyZoomFactor = 1.5;
    static constexpr double kKeyPanFraction = 0.2;

    // ---- Range selection (Ctrl+drag, as Perfetto's area selection) ----------------------
    // A band over the plot from `beginNs` to `endNs` (axis time), labelled with its start, end
    // and length; emits rangeChanged. Escape, a new run or a level window clears it.
    void setSelectedRange(double beginNs, double endNs);
    void clearSelectedRange();
    // Axis time, as set; nullopt when none.
    std::optional<std::pair<double, double>> selectedRange() const;
    // The selected range on `run`'s own clock (absolute ns): what trace::range_stats takes.
    std::optional<trace::TimeRange> selectedTimeRange(int run) const;
    // Axis time <-> `run`'s clock (its view origin, and its shift in a level window).
    std::int64_t toRunTime(int run, double axisNs) const;
    double toAxisTime(int run, std::int64_t absoluteNs) const;
    // What the band says: "1.2 ms – 3.4 ms (2.2 ms)", empty when there is no range.
    QString selectedRangeText() const;

    // ---- Highlight ---------------------------------------------------------------------
    // Items of `run` picked out over the dimmed rest (a summary row's items, search matches);
    // other runs keep theirs. Emits highlightChanged.
    void setHighlight(int run, std::vector<std::uint32_t> events);
    void clearHighlight();
    // Sorted event indices; empty when none.
    std::vector<std::uint32_t> highlight(int run) const;

    // ---- Search and help ----------------------------------------------------------------
    TimelineSearchBar* searchBar() const;
    // The shortcut list (F1 or ?), once it has been shown; null before.
    QDialog* shortcutDialog() const;

    // ---- Level windows (lecture figures) ---------------------------------------------------
    // Levels first..last of every run: each run shifted so that its own level `align` (first
    // when -1) starts at time 0, and drawn only from the end of its level first - 1 to the end
    // of its level last, so a figure shows those levels, the launch gap before the first and
    // every gap between them, labelled with its length, with host and device launches marked.
    // False, with the reason in `error`, when a run lacks those levels (the view is unchanged).
    bool setLevelWindow(int first, int last, int align = -1, QString* error = nullptr);
    // Back to the whole trace, each run at its first GPU item.
    void clearLevelWindow();
    struct LevelWindow {
        int first = 0, last = 0, align = 0;
    };
    std::optional<LevelWindow> levelWindow() const;
    // The levels of `run` drawn, wholly or in part, in the visible range (and window).
    std::vector<int> visibleLevels(int run) const;

    // ---- Selection and levels -----------------------------------------------------------
    // As a click at `pos` (plot widget coordinates): selects what is there (or clears).
    std::optional<TimelineHit> selectAt(const QPoint& pos);
    void selectEvent(int run, std::uint32_t event);
    std::optional<TimelineHit> selectedEvent() const;
    // The correlated API call / GPU item of the selection, if any.
    std::optional<std::uint32_t> selectedPartner() const;
    QString toolTipAt(const QPoint& pos) const;
    int levelCount() const;   // of the first run
    int cursorLevel() const;  // -1: none
    bool lectureMode() const;
    // What the cursor level's launch was (trace::describe_level), per run.
    QString caption() const;
    // Replots immediately; the duration of QCustomPlot's last replot, ms.
    double replotNow();

    // Exports by suffix: .png/.pdf/.svg (figure with the paper palette, summary and
    // provenance), .csv (the events), .json (Chrome trace of the first run).
    bool exportTo(const QString& path, QString* error = nullptr);

public slots:
    // Draws a vertical cursor at that level's start (each run its own); -1 hides it. Does not
    // emit levelSelected: the animation drives it.
    void setCursorLevel(int level);
    // Moves the cursor by `delta` levels and emits levelSelected (lecture mode's stepping).
    void stepLevel(int delta);
    void setLectureMode(bool on);
    // Ctrl+F: the search field takes the focus, its text selected.
    void focusSearch();
    // F1 / ?: the list of every key and mouse gesture of the timeline.
    void showShortcuts();

signals:
    // A kernel, device level or other item of a level was clicked, or a level was stepped to.
    void levelSelected(int level);
    void eventSelected(int run, quint32 event);
    void lectureModeChanged(bool on);
    // Runs were set or cleared (setModels, showMessage).
    void modelsChanged();
    // The selected range was set, moved or cleared.
    void rangeChanged();
    void highlightChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Private;
    std::unique_ptr<Private> d;

    void rebuild();
    void applyTheme();
    void applyFonts();
    void setRange(double beginNs, double endNs, bool pushUndo);
    std::optional<TimelineHit> hitAt(const QPoint& pos) const;
    std::optional<int> levelOf(const TimelineHit& hit) const;
    void updateLabels();
    void updateExtent();
    void updateAxisLabel();
    // Lecture stepping: a window of four levels from the one before `level`, if every run has them.
    void windowAround(int level);
    void onMousePress(QMouseEvent* event);
    void onMouseMove(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);
    void onWheel(QWheelEvent* event);
    // The keys the plot handles itself (as KeyPress) rather than leaving them to the window's
    // shortcuts: the map editor's W (wall) and S (start) tools must not fire while the
    // timeline has the focus.
    bool takesKey(const QKeyEvent& key) const;
    void keyZoom(double factor);
    void keyPan(double fraction);
    void updateRangeBand();
    bool exportBytes(const QString& path, QByteArray* bytes, QString* error);
    void exportDialog();
};

}  // namespace ps::ui
