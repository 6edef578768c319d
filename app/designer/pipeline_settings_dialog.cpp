#include "pipeline_settings_dialog.hpp"

#include "json_bridge.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace tideline::designer {

namespace {
// Defaults as the engine applies them (checkpoint/coordinator.cpp, validate.cpp).
constexpr int kDefaultIntervalMs = 10000;
constexpr int kDefaultKeep = 3;

QLabel *hint(QWidget *parent)
{
    auto *l = new QLabel(parent);
    l->setObjectName(QStringLiteral("fieldHelp"));
    l->setWordWrap(true);
    return l;
}
} // namespace

PipelineSettingsDialog::PipelineSettingsDialog(const PipelineHeader &header,
                                               const QString &pipelineDir,
                                               QWidget *parent)
    : QDialog(parent)
    , m_input(header)
    , m_pipelineDir(pipelineDir)
    , m_name(new QLineEdit(this))
    , m_description(new QPlainTextEdit(this))
    , m_checkpoints(new QGroupBox(tr("Checkpoints"), this))
    , m_interval(new QSpinBox(this))
    , m_dir(new QLineEdit(this))
    , m_keep(new QSpinBox(this))
    , m_dirHint(hint(this))
    , m_state(new QComboBox(this))
    , m_memoryMb(new QSpinBox(this))
    , m_stateHint(hint(this))
    , m_delivery(new QComboBox(this))
{
    setObjectName(QStringLiteral("pipelineSettingsDialog"));
    setWindowTitle(tr("Pipeline settings"));
    const Json &s = header.settings;

    m_name->setObjectName(QStringLiteral("settingsName"));
    m_name->setText(qstr(header.name));
    m_name->setPlaceholderText(tr("clicks-per-user"));
    m_description->setObjectName(QStringLiteral("settingsDescription"));
    m_description->setPlainText(qstr(header.description));
    m_description->setFixedHeight(64);

    // Checkpoints: the group's check box is "settings.checkpoint present".
    const Json *cp
        = s.contains("checkpoint") && s["checkpoint"].is_object() ? &s["checkpoint"] : nullptr;
    m_checkpoints->setObjectName(QStringLiteral("settingsCheckpoints"));
    m_checkpoints->setCheckable(true);
    m_checkpoints->setChecked(cp != nullptr);
    m_interval->setObjectName(QStringLiteral("settingsInterval"));
    m_interval->setRange(1, 24 * 3600 * 1000);
    m_interval->setSingleStep(1000);
    m_interval->setSuffix(tr(" ms"));
    m_interval->setGroupSeparatorShown(true);
    m_interval->setValue(cp && (*cp).value("interval_ms", Json()).is_number_integer()
                             ? int(std::clamp<long long>((*cp)["interval_ms"].get<long long>(), 1,
                                                         24LL * 3600 * 1000))
                             : kDefaultIntervalMs);
    m_dir->setObjectName(QStringLiteral("settingsDir"));
    m_dir->setText(
        cp && (*cp).value("dir", Json()).is_string()
            ? qstr((*cp)["dir"].get<std::string>())
            : QStringLiteral("state/%1")
                  .arg(header.name.empty() ? QStringLiteral("pipeline") : qstr(header.name)));
    m_keep->setObjectName(QStringLiteral("settingsKeep"));
    m_keep->setRange(1, 1000);
    m_keep->setValue(cp && (*cp).value("keep", Json()).is_number_integer()
                         ? int(std::clamp<long long>((*cp)["keep"].get<long long>(), 1, 1000))
                         : kDefaultKeep);
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Checkpoint folder"), QDir(m_pipelineDir).absoluteFilePath(m_dir->text()));
        if (dir.isEmpty())
            return;
        // Keep folders inside the pipeline's folder relative, so the file moves with them.
        const QString rel = QDir(m_pipelineDir).relativeFilePath(dir);
        m_dir->setText(rel.startsWith(QLatin1String("..")) ? dir : rel);
    });
    auto *dirRow = new QHBoxLayout;
    dirRow->addWidget(m_dir, 1);
    dirRow->addWidget(browse);
    auto *cpForm = new QFormLayout(m_checkpoints);
    cpForm->addRow(tr("Interval"), m_interval);
    cpForm->addRow(tr("Folder"), dirRow);
    cpForm->addRow(QString(), m_dirHint);
    cpForm->addRow(tr("Keep"), m_keep);
    auto *cpHelp = hint(this);
    cpHelp->setText(tr("A checkpoint is one consistent snapshot of every node's state, every "
                       "source's position, the watermarks and each sink's commit point. "
                       "tideline-run resumes from the newest complete one (--fresh ignores "
                       "them); Keep is how many complete checkpoints stay on disk."));
    cpForm->addRow(cpHelp);

    m_state->setObjectName(QStringLiteral("settingsState"));
    m_state->addItem(tr("memory"), QStringLiteral("memory"));
    m_state->addItem(tr("rocksdb"), QStringLiteral("rocksdb"));
    m_state->setCurrentIndex(m_state->findData(qstr(s.value("state", Json("memory")).is_string()
                                                        ? s.value("state", std::string("memory"))
                                                        : std::string("memory"))));
    if (m_state->currentIndex() < 0)
        m_state->setCurrentIndex(0);
    // The engine's default budget is 256 MB per stateful node (pipelines/README.md, settings).
    m_memoryMb->setObjectName(QStringLiteral("settingsStateMemory"));
    m_memoryMb->setRange(1, 1024 * 1024);
    m_memoryMb->setSuffix(tr(" MB"));
    m_memoryMb->setGroupSeparatorShown(true);
    m_memoryMb->setValue(s.contains("state_memory_mb") && s["state_memory_mb"].is_number()
                             ? std::max(1, static_cast<int>(s["state_memory_mb"].get<double>()))
                             : 256);
    m_delivery->setObjectName(QStringLiteral("settingsDelivery"));
    m_delivery->addItem(tr("at least once"), QStringLiteral("at_least_once"));
    m_delivery->addItem(tr("exactly once"), QStringLiteral("exactly_once"));
    m_delivery->setCurrentIndex(
        m_delivery->findData(qstr(s.value("delivery", Json("at_least_once")).is_string()
                                      ? s.value("delivery", std::string("at_least_once"))
                                      : std::string("at_least_once"))));
    if (m_delivery->currentIndex() < 0)
        m_delivery->setCurrentIndex(0);
    auto *deliveryHelp = hint(this);
    deliveryHelp->setText(tr("The default for sinks that support both (sink.kafka): exactly once "
                             "commits output with each checkpoint."));

    auto *general = new QFormLayout;
    general->addRow(tr("Name"), m_name);
    general->addRow(tr("Description"), m_description);
    auto *other = new QFormLayout;
    other->addRow(tr("State backend"), m_state);
    other->addRow(tr("Memory per node"), m_memoryMb);
    other->addRow(QString(), m_stateHint);
    other->addRow(tr("Delivery"), m_delivery);
    other->addRow(QString(), deliveryHelp);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(general);
    layout->addWidget(m_checkpoints);
    layout->addLayout(other);
    layout->addStretch(1);
    layout->addWidget(buttons);

    connect(m_dir, &QLineEdit::textChanged, this, &PipelineSettingsDialog::updateHints);
    connect(m_state, &QComboBox::currentIndexChanged, this, &PipelineSettingsDialog::updateHints);
    connect(m_checkpoints, &QGroupBox::toggled, this, &PipelineSettingsDialog::updateHints);
    updateHints();
    resize(560, sizeHint().height());
}

void PipelineSettingsDialog::updateHints()
{
    const QString dir = m_dir->text().trimmed();
    m_dirHint->setText(dir.isEmpty() ? tr("A folder is required.")
                       : QDir::isRelativePath(dir)
                           ? tr("Relative to the pipeline's folder: %1")
                                 .arg(QDir::cleanPath(QDir(m_pipelineDir).filePath(dir)))
                           : QString());
    m_dirHint->setVisible(!m_dirHint->text().isEmpty());
    const bool rocksdb = m_state->currentData().toString() == QLatin1String("rocksdb");
    m_memoryMb->setEnabled(rocksdb);
    m_stateHint->setText(
        rocksdb ? tr("Keyed state (windows, dedup, join, top, window_join) beyond the memory "
                     "budget spills its coldest keys to a local RocksDB and is read back when "
                     "needed (slower, but larger than memory). Checkpoints go to RocksDB either "
                     "way.")
                : tr("Keyed state lives in memory; checkpoints and savepoints go to RocksDB."));
}

PipelineHeader PipelineSettingsDialog::header() const
{
    PipelineHeader h = m_input;
    h.name = sstr(m_name->text().trimmed());
    h.description = sstr(m_description->toPlainText());
    Json &s = h.settings;
    if (!s.is_object())
        s = Json::object();
    if (m_checkpoints->isChecked()) {
        // Edit in place so unknown keys and key order survive.
        Json cp = s.contains("checkpoint") && s["checkpoint"].is_object() ? s["checkpoint"]
                                                                          : Json::object();
        cp["interval_ms"] = std::int64_t(m_interval->value());
        cp["dir"] = sstr(m_dir->text().trimmed());
        cp["keep"] = std::int64_t(m_keep->value());
        s["checkpoint"] = std::move(cp);
    } else
        s.erase("checkpoint");
    // Written only when chosen or already present, so files stay minimal.
    auto setChoice = [&](const char *key, const QComboBox *box, const char *def) {
        const std::string v = sstr(box->currentData().toString());
        if (v == def && !s.contains(key))
            return;
        s[key] = v;
    };
    setChoice("state", m_state, "memory");
    // The budget only means something with rocksdb; an existing value is kept either way.
    if (sstr(m_state->currentData().toString()) == "rocksdb"
        && (m_memoryMb->value() != 256 || s.contains("state_memory_mb")))
        s["state_memory_mb"] = std::int64_t(m_memoryMb->value());
    setChoice("delivery", m_delivery, "at_least_once");
    return h;
}

} // namespace tideline::designer
