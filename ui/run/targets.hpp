// Remote targets in the window: the list the user keeps (name, command prefix, remote program;
// saved with QSettings), a dialog to add, edit and test them, and a connector that starts a
// target off the GUI thread (ssh or srun may take seconds) and hands back the connected target
// (kernels/remote/target.hpp) tagged with a job id, so a stale connection is dropped.
#pragma once

#include <QDialog>
#include <QFutureWatcher>
#include <QList>
#include <QObject>
#include <QString>
#include <memory>

#include "kernels/remote/target.hpp"

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace ps::ui {

struct TargetEntry {
    QString name;    // what the chooser shows
    QString prefix;  // "ssh gpu-host"; empty: a local subprocess
    QString remoteCli = QStringLiteral("pathscope-cli");
    remote::TargetSpec spec() const;
    bool operator==(const TargetEntry&) const = default;
};

// The targets saved in QSettings ("targets" array), in the order the user keeps them.
QList<TargetEntry> loadTargets();
void saveTargets(const QList<TargetEntry>& targets);

using TargetPtr = std::shared_ptr<remote::RemoteTarget>;

class TargetConnector : public QObject {
    Q_OBJECT
public:
    explicit TargetConnector(QObject* parent = nullptr);
    ~TargetConnector() override;
    // Starts connecting; an earlier connection still under way is left to finish unheard.
    quint64 connectTo(const TargetEntry& entry);
    quint64 latest() const { return m_job; }

signals:
    void connected(quint64 job, ps::ui::TargetPtr target);
    void failed(quint64 job, const QString& message);

private:
    quint64 m_job = 0;
};

// Add, edit, remove and test targets; Save writes them to QSettings.
class TargetsDialog : public QDialog {
    Q_OBJECT
public:
    explicit TargetsDialog(QWidget* parent = nullptr);
    QList<TargetEntry> targets() const { return m_targets; }

private:
    void load(int row);
    void store();
    QList<TargetEntry> m_targets;
    QListWidget* m_list = nullptr;
    QLineEdit *m_name = nullptr, *m_prefix = nullptr, *m_cli = nullptr;
    QLabel* m_result = nullptr;
    QPushButton* m_test = nullptr;
    TargetConnector* m_connector = nullptr;
};

}  // namespace ps::ui

Q_DECLARE_METATYPE(ps::ui::TargetPtr)
