// Remote targets in the window (targets.hpp).
#include "ui/run/targets.hpp"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "database/recorder.hpp"

namespace ps::ui {

remote::TargetSpec TargetEntry::spec() const {
    remote::TargetSpec s;
    s.prefix = prefix.trimmed().toStdString();
    s.remote_cli = remoteCli.trimmed().isEmpty() ? std::string("pathscope-cli") : remoteCli.trimmed().toStdString();
    return s;
}

QList<TargetEntry> loadTargets() {
    QSettings settings;
    QList<TargetEntry> out;
    const int n = settings.beginReadArray(QStringLiteral("targets"));
    for (int i = 0; i < n; ++i) {
        settings.setArrayIndex(i);
        TargetEntry t;
        t.name = settings.value(QStringLiteral("name")).toString();
        t.prefix = settings.value(QStringLiteral("prefix")).toString();
        t.remoteCli = settings.value(QStringLiteral("remote_cli"), t.remoteCli).toString();
        if (!t.name.isEmpty()) out << t;
    }
    settings.endArray();
    return out;
}

void saveTargets(const QList<TargetEntry>& targets) {
    QSettings settings;
    settings.remove(QStringLiteral("targets"));
    settings.beginWriteArray(QStringLiteral("targets"), int(targets.size()));
    for (int i = 0; i < targets.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("name"), targets[i].name);
        settings.setValue(QStringLiteral("prefix"), targets[i].prefix);
        settings.setValue(QStringLiteral("remote_cli"), targets[i].remoteCli);
    }
    settings.endArray();
}

namespace {
struct Connection {
    TargetPtr target;
    QString error;
};
}  // namespace

TargetConnector::TargetConnector(QObject* parent) : QObject(parent) { qRegisterMetaType<TargetPtr>(); }

TargetConnector::~TargetConnector() = default;

quint64 TargetConnector::connectTo(const TargetEntry& entry) {
    const quint64 job = ++m_job;
    auto* watcher = new QFutureWatcher<Connection>(this);
    connect(watcher, &QFutureWatcher<Connection>::finished, this, [this, watcher, job] {
        const Connection c = watcher->result();
        watcher->deleteLater();
        if (c.target)
            emit connected(job, c.target);
        else
            emit failed(job, c.error);
    });
    const remote::TargetSpec spec = entry.spec();
    watcher->setFuture(QtConcurrent::run([spec] {
        remote::ConnectOptions options;
        options.client_build = db::build_commit();
        auto target = remote::RemoteTarget::connect(spec, options);
        return target ? Connection{*target, {}} : Connection{nullptr, QString::fromStdString(target.error().message)};
    }));
    return job;
}

TargetsDialog::TargetsDialog(QWidget* parent) : QDialog(parent), m_targets(loadTargets()) {
    setWindowTitle(tr("Targets"));
    m_list = new QListWidget(this);
    m_name = new QLineEdit(this);
    m_prefix = new QLineEdit(this);
    m_prefix->setPlaceholderText(tr("ssh gpu-host · srun --gres=gpu:1 · empty: a local subprocess"));
    m_cli = new QLineEdit(this);
    m_cli->setPlaceholderText(QStringLiteral("pathscope-cli"));
    m_result = new QLabel(this);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_connector = new TargetConnector(this);
    auto* add = new QPushButton(tr("Add"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    m_test = new QPushButton(tr("Test"), this);
    auto* form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Command prefix"), m_prefix);
    form->addRow(tr("Remote program"), m_cli);
    auto* row = new QHBoxLayout;
    row->addWidget(add);
    row->addWidget(remove);
    row->addStretch(1);
    row->addWidget(m_test);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("A target runs <i>PREFIX REMOTE-PROGRAM serve</i>; authentication is your own "
                                    "ssh or Slurm setup (PathScope stores no password)."),
                                 this));
    layout->addWidget(m_list, 1);
    layout->addLayout(form);
    layout->addLayout(row);
    layout->addWidget(m_result);
    layout->addWidget(buttons);
    for (const TargetEntry& t : m_targets) m_list->addItem(t.name);

    connect(m_list, &QListWidget::currentRowChanged, this, &TargetsDialog::load);
    for (QLineEdit* edit : {m_name, m_prefix, m_cli})
        connect(edit, &QLineEdit::textEdited, this, &TargetsDialog::store);
    connect(add, &QPushButton::clicked, this, [this] {
        TargetEntry t;
        t.name = tr("target %1").arg(m_targets.size() + 1);
        m_targets << t;
        m_list->addItem(t.name);
        m_list->setCurrentRow(int(m_targets.size()) - 1);
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        const int r = m_list->currentRow();
        if (r < 0) return;
        m_targets.removeAt(r);
        delete m_list->takeItem(r);
    });
    connect(m_test, &QPushButton::clicked, this, [this] {
        const int r = m_list->currentRow();
        if (r < 0) return;
        m_result->setText(tr("Connecting to %1 …").arg(QString::fromStdString(m_targets[r].spec().command())));
        m_connector->connectTo(m_targets[r]);
    });
    connect(m_connector, &TargetConnector::connected, this, [this](quint64 job, TargetPtr target) {
        if (job != m_connector->latest()) return;
        const ExecutionSite& s = target->site();
        int available = 0;
        for (const auto& v : target->hello().variants) available += v.available;
        m_result->setText(tr("Connected: host %1, %2, build %3; %4 of %5 variants available there.")
                              .arg(QString::fromStdString(s.host),
                                   s.gpu_available ? QString::fromStdString(s.gpu_name) : tr("no GPU"),
                                   QString::fromStdString(s.build_commit))
                              .arg(available)
                              .arg(target->hello().variants.size()));
    });
    connect(m_connector, &TargetConnector::failed, this, [this](quint64 job, const QString& message) {
        if (job == m_connector->latest()) m_result->setText(tr("Failed: %1").arg(message));
    });
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        saveTargets(m_targets);
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    if (!m_targets.isEmpty()) m_list->setCurrentRow(0);
    load(m_list->currentRow());
}

void TargetsDialog::load(int row) {
    const bool valid = row >= 0 && row < m_targets.size();
    for (QLineEdit* edit : {m_name, m_prefix, m_cli}) edit->setEnabled(valid);
    m_test->setEnabled(valid);
    if (!valid) return;
    m_name->setText(m_targets[row].name);
    m_prefix->setText(m_targets[row].prefix);
    m_cli->setText(m_targets[row].remoteCli);
}

void TargetsDialog::store() {
    const int r = m_list->currentRow();
    if (r < 0 || r >= m_targets.size()) return;
    m_targets[r].name = m_name->text();
    m_targets[r].prefix = m_prefix->text();
    m_targets[r].remoteCli = m_cli->text();
    m_list->item(r)->setText(m_targets[r].name);
}

}  // namespace ps::ui
