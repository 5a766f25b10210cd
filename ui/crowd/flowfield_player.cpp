// FlowFieldPlayer (see flowfield_player.hpp).
#include "ui/crowd/flowfield_player.hpp"

#include <QLocale>
#include <QPainter>
#include <QPen>
#include <algorithm>
#include <cmath>

namespace ps::ui {
namespace {

constexpr double kArrowSpacingPx = 14.0;
const QColor kAgent(0xff, 0x2d, 0x95);

}  // namespace

FlowFieldPlayer::FlowFieldPlayer(QObject* parent) : MapLayer(parent) {
    m_timer.setInterval(int(std::lround(1000.0 / m_speed)));
    connect(&m_timer, &QTimer::timeout, this, &FlowFieldPlayer::stepForward);
}

FlowFieldPlayer::~FlowFieldPlayer() = default;

bool FlowFieldPlayer::setRun(const std::shared_ptr<const GridMap>& map, const RunResult& result) {
    if (!map || map->empty() || result.flow_dirs.size() != map->cell_count() ||
        result.bfs_levels.size() != map->cell_count()) {
        clear();
        return false;
    }
    auto field = std::make_unique<FlowField>();
    field->width = map->width();
    field->height = map->height();
    field->distance = result.bfs_levels;
    field->dirs = result.flow_dirs;
    const auto goal = std::find(field->distance.begin(), field->distance.end(), 0);
    field->goal = goal == field->distance.end() ? kNoVertex : Vertex(goal - field->distance.begin());
    pause();
    m_field = std::move(field);
    place(m_seed);
    return true;
}

void FlowFieldPlayer::clear() {
    pause();
    const bool had = m_field != nullptr;
    m_field.reset();
    m_placed.clear();
    m_agents.clear();
    m_step = 0;
    m_moving = 0;
    if (had) {
        emit stateChanged();
        emit changed();
    }
}

void FlowFieldPlayer::place(std::uint64_t seed) {
    m_placed = m_field ? place_agents(*m_field, std::size_t(std::max(0, m_agentCount)), seed) : std::vector<Vertex>{};
    reset();
}

int FlowFieldPlayer::arrived() const {
    if (!m_field) return 0;
    return int(std::count(m_agents.begin(), m_agents.end(), m_field->goal));
}

QString FlowFieldPlayer::status() const {
    if (!m_field) return tr("No flow field: run flowfield.cpu or flowfield.gpu and select its row.");
    const QLocale locale;
    return tr("step %1 · %2 of %3 agents at the goal%4")
        .arg(locale.toString(m_step), locale.toString(arrived()), locale.toString(qulonglong(m_agents.size())),
             m_moving == 0 && !m_agents.empty() ? tr(" · all arrived") : QString());
}

int FlowFieldPlayer::arrowStride(double pixelsPerCell) {
    if (!(pixelsPerCell > 0)) return 1;
    return std::max(1, int(std::ceil(kArrowSpacingPx / pixelsPerCell)));
}

void FlowFieldPlayer::setAgentCount(int count) {
    if (count == m_agentCount) return;
    m_agentCount = std::max(0, count);
    pause();
    place(m_seed);
}

void FlowFieldPlayer::placeAgents() {
    pause();
    place(++m_seed);
}

void FlowFieldPlayer::play() {
    if (!m_field || m_agents.empty() || playing()) return;
    if (m_moving == 0) reset();  // finished: play again from the placement
    m_timer.start();
    emit playingChanged(true);
}

void FlowFieldPlayer::pause() {
    if (!playing()) return;
    m_timer.stop();
    emit playingChanged(false);
}

void FlowFieldPlayer::togglePlay() { playing() ? pause() : play(); }

void FlowFieldPlayer::stepForward() {
    if (!m_field || m_moving == 0) {
        pause();
        return;
    }
    m_moving = int(advance_agents(*m_field, m_agents, 1));
    ++m_step;
    if (m_moving == 0) pause();
    emit stateChanged();
    emit changed();
}

void FlowFieldPlayer::reset() {
    m_agents = m_placed;
    m_step = 0;
    // Zero steps: only counts the agents that can still move.
    m_moving = m_field ? int(advance_agents(*m_field, m_agents, 0)) : 0;
    emit stateChanged();
    emit changed();
}

void FlowFieldPlayer::setSpeed(double stepsPerSecond) {
    m_speed = std::clamp(stepsPerSecond, 0.5, 240.0);
    m_timer.setInterval(int(std::lround(1000.0 / m_speed)));
}

void FlowFieldPlayer::setArrowsShown(bool shown) {
    if (shown == m_arrows) return;
    m_arrows = shown;
    emit changed();
}

void FlowFieldPlayer::paint(QPainter& painter, const QRectF& visibleCells, double pixelsPerCell) const {
    if (!m_field) return;
    const FlowField& f = *m_field;
    const int x0 = std::max(0, int(std::floor(visibleCells.left())));
    const int y0 = std::max(0, int(std::floor(visibleCells.top())));
    const int x1 = std::min(f.width - 1, int(std::ceil(visibleCells.right())));
    const int y1 = std::min(f.height - 1, int(std::ceil(visibleCells.bottom())));

    if (m_arrows) {
        // One arrow per stride x stride block (its centre cell), a dark halo under a light line
        // so arrows read on every colour of the distance ramp.
        const int stride = arrowStride(pixelsPerCell);
        const double length = 0.75 * stride;
        std::vector<QLineF> lines;
        for (int y = y0 - y0 % stride + stride / 2; y <= y1; y += stride) {
            for (int x = x0 - x0 % stride + stride / 2; x <= x1; x += stride) {
                const std::uint8_t dir = f.dirs[std::size_t(y) * std::size_t(f.width) + std::size_t(x)];
                if (dir >= 8) continue;
                QPointF u(kGridSteps[dir].dx, kGridSteps[dir].dy);
                u /= std::hypot(u.x(), u.y());
                const QPointF centre(x + 0.5, y + 0.5);
                const QPointF tail = centre - u * (length / 2), tip = centre + u * (length / 2);
                const QPointF side(-u.y(), u.x());
                const double head = length * 0.35;
                lines.emplace_back(tail, tip);
                lines.emplace_back(tip, tip - u * head + side * head * 0.6);
                lines.emplace_back(tip, tip - u * head - side * head * 0.6);
            }
        }
        QPen halo(QColor(0, 0, 0, 150), 3.0);
        halo.setCosmetic(true);
        halo.setCapStyle(Qt::RoundCap);
        painter.setPen(halo);
        painter.drawLines(lines.data(), int(lines.size()));
        QPen line(QColor(255, 255, 255, 230), 1.3);
        line.setCosmetic(true);
        line.setCapStyle(Qt::RoundCap);
        painter.setPen(line);
        painter.drawLines(lines.data(), int(lines.size()));
    }

    // Agents: discs of at least a few pixels; many small ones as round points (much faster).
    const double radius = std::max(0.38, 3.0 / pixelsPerCell);
    std::vector<QPointF> points;
    points.reserve(m_agents.size());
    for (Vertex a : m_agents) {
        const int x = int(a % Vertex(f.width)), y = int(a / Vertex(f.width));
        if (x < x0 - 1 || x > x1 + 1 || y < y0 - 1 || y > y1 + 1) continue;
        points.emplace_back(x + 0.5, y + 0.5);
    }
    if (points.size() > 4000 || radius * pixelsPerCell < 3.5) {
        QPen dot(kAgent, std::max(3.0, 2 * radius * pixelsPerCell));
        dot.setCosmetic(true);
        dot.setCapStyle(Qt::RoundCap);
        painter.setPen(dot);
        painter.drawPoints(points.data(), int(points.size()));
    } else {
        QPen rim(Qt::white, 1.2);
        rim.setCosmetic(true);
        painter.setPen(rim);
        painter.setBrush(kAgent);
        for (const QPointF& p : points) painter.drawEllipse(p, radius, radius);
    }
}

}  // namespace ps::ui
