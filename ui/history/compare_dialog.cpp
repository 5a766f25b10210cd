// CompareDialog: the comparison lines and their table.
#include "ui/history/compare_dialog.hpp"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <functional>
#include <map>
#include <set>

#include "ui/history/history_model.hpp"

namespace ps::ui {

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

std::map<QString, double> counters(const db::RunRow& row) {
    std::map<QString, double> out;
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(row.summary.counters_json)).object();
    for (auto it = o.begin(); it != o.end(); ++it) out[it.key()] = it.value().toDouble();
    return out;
}

QString formatCount(double value) { return QString::number(value, 'f', value == qint64(value) ? 0 : 3); }

}  // namespace

std::vector<CompareLine> compareLines(const std::vector<db::RunRow>& runs) {
    std::vector<CompareLine> lines;
    auto text = [&](const QString& field, const std::function<QString(const db::RunRow&)>& get) {
        CompareLine line{field, {}, -1};
        for (const auto& r : runs) line.values << get(r);
        lines.push_back(std::move(line));
    };
    // Times: runs without samples have no time and never count as the fastest.
    auto time = [&](const QString& field, double db::RunRow::*member) {
        CompareLine line{field, {}, -1};
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const auto& r = runs[i];
            line.values << (r.repetitions ? formatMs(r.*member) : QString());
            const bool faster = line.best < 0 || r.*member < runs[std::size_t(line.best)].*member;
            if (r.repetitions && faster) line.best = int(i);
        }
        if (runs.size() < 2) line.best = -1;
        lines.push_back(std::move(line));
    };
    text(QObject::tr("Run"), [](const db::RunRow& r) { return QStringLiteral("#%1").arg(r.id); });
    text(QObject::tr("Date"), [](const db::RunRow& r) { return formatLocalTime(r.created_unix_ms); });
    text(QObject::tr("Variant"), [](const db::RunRow& r) { return qs(r.info.variant); });
    text(QObject::tr("Device"), [](const db::RunRow& r) { return qs(r.info.device_name); });
    text(QObject::tr("Map"), [](const db::RunRow& r) {
        return QStringLiteral("%1 (%2×%3)").arg(qs(r.map_name)).arg(r.map_width).arg(r.map_height);
    });
    text(QObject::tr("Status"),
         [](const db::RunRow& r) { return qs(std::string(db::display_status(r.summary.status))); });
    text(QObject::tr("Repetitions"), [](const db::RunRow& r) { return QString::number(r.repetitions); });
    time(QObject::tr("Total mean (ms)"), &db::RunRow::total_mean_ms);
    time(QObject::tr("Total median (ms)"), &db::RunRow::total_median_ms);
    time(QObject::tr("Compute mean (ms)"), &db::RunRow::compute_mean_ms);
    time(QObject::tr("Compute median (ms)"), &db::RunRow::compute_median_ms);
    if (!runs.empty()) {
        // Speedup over the first run selected, on the end-to-end median (the papers' measure).
        const db::RunRow& base = runs.front();
        text(QObject::tr("Speedup over #%1").arg(base.id), [&base](const db::RunRow& r) {
            if (!r.repetitions || !base.repetitions || r.total_median_ms <= 0) return QString();
            return QStringLiteral("%1×").arg(base.total_median_ms / r.total_median_ms, 0, 'f', 2);
        });
    }
    text(QObject::tr("Cost"), [](const db::RunRow& r) { return formatCost(r); });
    text(QObject::tr("Expanded"), [](const db::RunRow& r) { return QString::number(r.summary.expanded); });
    text(QObject::tr("Levels"), [](const db::RunRow& r) { return QString::number(r.summary.levels); });
    text(QObject::tr("Visited"), [](const db::RunRow& r) { return QString::number(r.summary.visited); });
    text(QObject::tr("Validation"), [](const db::RunRow& r) { return qs(r.summary.validation); });

    std::vector<std::map<QString, double>> perRun;
    std::set<QString> names;  // sorted union of the counters' names
    for (const auto& r : runs) {
        perRun.push_back(counters(r));
        for (const auto& entry : perRun.back()) names.insert(entry.first);
    }
    for (const QString& name : names) {
        CompareLine line{name, {}, -1};
        for (const auto& c : perRun) {
            const auto it = c.find(name);
            line.values << (it == c.end() ? QString() : formatCount(it->second));
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

CompareDialog::CompareDialog(const std::vector<db::RunRow>& runs, QWidget* parent)
    : QDialog(parent), m_table(new QTableWidget(this)) {
    setWindowTitle(tr("Compare %n runs", nullptr, int(runs.size())));
    const auto lines = compareLines(runs);
    m_table->setRowCount(int(lines.size()));
    m_table->setColumnCount(int(runs.size()));
    QStringList headers;
    for (const auto& r : runs) headers << QStringLiteral("#%1 %2").arg(r.id).arg(qs(r.info.variant));
    m_table->setHorizontalHeaderLabels(headers);
    QStringList fields;
    for (int row = 0; row < int(lines.size()); ++row) {
        const CompareLine& line = lines[std::size_t(row)];
        fields << line.field;
        for (int column = 0; column < line.values.size(); ++column) {
            auto* item = new QTableWidgetItem(line.values[column]);
            item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (column == line.best) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            m_table->setItem(row, column, item);
        }
    }
    m_table->setVerticalHeaderLabels(fields);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setAlternatingRowColors(true);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("Copy as text"), QDialogButtonBox::ActionRole);
    connect(copy, &QPushButton::clicked, this, &CompareDialog::copyToClipboard);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(qMin(220 + 170 * int(runs.size()), 1200), 620);
}

// Tab-separated, so it pastes into a spreadsheet as a table.
void CompareDialog::copyToClipboard() const {
    QString out = QStringLiteral("field");
    for (int c = 0; c < m_table->columnCount(); ++c) out += '\t' + m_table->horizontalHeaderItem(c)->text();
    for (int r = 0; r < m_table->rowCount(); ++r) {
        out += '\n' + m_table->verticalHeaderItem(r)->text();
        for (int c = 0; c < m_table->columnCount(); ++c) out += '\t' + m_table->item(r, c)->text();
    }
    QApplication::clipboard()->setText(out + '\n');
}

}  // namespace ps::ui
