// File > Export animation: the shown run's replay as GIF or MP4. The file, the animation's
// frames A-B, frames per second and width; the export runs on a worker thread with a progress
// bar and Cancel (the window stays live; a cancelled export leaves the file as it was).
#pragma once

#include <QDialog>
#include <atomic>
#include <memory>
#include <vector>

#include "ui/animation/movie_export.hpp"

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;

namespace ps::ui {

class MovieDialog : public QDialog {
    Q_OBJECT
public:
    // `frameCount`: the animation's (the first panel's) frames, for the range.
    MovieDialog(std::vector<MoviePanel> panels, int frameCount, const QString& suggestedPath,
                QWidget* parent = nullptr);
    ~MovieDialog() override;  // cancels a running export and waits for it

    void setPath(const QString& path);
    void setFrames(int first, int last);
    void setFps(int fps);
    void setMovieWidth(int width);
    bool exporting() const;
    QString status() const;

public slots:
    void startExport();
    void cancelExport();

signals:
    // The export ended (written, failed or cancelled).
    void exportFinished(bool ok, const QString& message);

protected:
    void reject() override;  // Esc / Close: cancels a running export first

private:
    std::vector<MoviePanel> m_panels;
    QLineEdit* m_path = nullptr;
    QSpinBox* m_first = nullptr;
    QSpinBox* m_last = nullptr;
    QSpinBox* m_fps = nullptr;
    QSpinBox* m_width = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_running = false;

    void browse();
    void setRunning(bool running);
};

}  // namespace ps::ui
