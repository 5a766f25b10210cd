// Two runs of one map animated side by side in lock-step (issue 19): one slider, play and
// pause, each panel with its run's name and its frame's counts under it; a frame is the same
// number of levels or expansions in both (movie_frames), so the search that needs fewer ends
// first and holds its last frame. Opened from the History dock (two runs selected) or with
// two finished results; the movie export writes the same frames.
#pragma once

#include <QImage>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <vector>

#include "ui/animation/movie_frames.hpp"

class QLabel;
class QSlider;
class QToolButton;

namespace ps::ui {

class SideBySideView : public QWidget {
    Q_OBJECT
public:
    explicit SideBySideView(std::vector<MoviePanel> panels, QWidget* parent = nullptr);
    ~SideBySideView() override;

    int frameCount() const;
    int frame() const;
    // The frame panel `panel` shows now: the common frame, or its last one once it has ended.
    int panelFrame(int panel) const;
    const QImage& image() const;  // the current frame, both panels

public slots:
    void setFrame(int frame);
    void play();
    void pause();

signals:
    void frameChanged(int frame);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    MovieFrames m_frames;
    QImage m_image;
    int m_frame = -1;
    QLabel* m_picture = nullptr;
    QSlider* m_slider = nullptr;
    QToolButton* m_play = nullptr;
    QLabel* m_counter = nullptr;
    QTimer m_timer;

    void showImage();
};

}  // namespace ps::ui
