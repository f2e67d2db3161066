#include "app/gui/diff_view.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>

#include "app/gui/background_job.h"
#include "app/gui/run_manager.h"

namespace strobe::app {

namespace {

constexpr int kSortRole = Qt::UserRole;
constexpr int kNodeRole = Qt::UserRole + 1;

QColor statusColour(core::DiffStatus s) {
    switch (s) {
    case core::DiffStatus::Added: return QColor(0x2e, 0x7d, 0x32);
    case core::DiffStatus::Removed: return QColor(0xc6, 0x28, 0x28);
    case core::DiffStatus::Changed: return QColor(0xef, 0x6c, 0x00);
    case core::DiffStatus::Same: break;
    }
    return QColor(0x75, 0x75, 0x75);
}

QStandardItem* numberItem(double value, const QString& text) {
    auto* item = new QStandardItem(text);
    item->setData(value, kSortRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

}  // namespace

DiffDialog::~DiffDialog() = default;

DiffDialog::DiffDialog(RunManager& runs, core::JobRunner& runner, QWidget* parent)
    : QDialog(parent), m_runs(runs), m_job(std::make_unique<BackgroundJob>(runner, backgroundSlot("diff", this))) {
    setObjectName(QStringLiteral("diffDialog"));
    setWindowTitle(tr("Structural diff"));
    auto* layout = new QVBoxLayout(this);
    auto* pick = new QHBoxLayout;
    m_a = new QComboBox(this);
    m_a->setObjectName(QStringLiteral("diffRunA"));
    m_b = new QComboBox(this);
    m_b->setObjectName(QStringLiteral("diffRunB"));
    auto* go = new QPushButton(tr("Compare"), this);
    go->setObjectName(QStringLiteral("diffCompare"));
    pick->addWidget(new QLabel(tr("A:"), this));
    pick->addWidget(m_a, 1);
    pick->addWidget(new QLabel(tr("B:"), this));
    pick->addWidget(m_b, 1);
    pick->addWidget(go);
    layout->addLayout(pick);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("diffSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_model = new QStandardItemModel(0, ColumnCount, this);
    m_model->setSortRole(kSortRole);
    m_model->setHorizontalHeaderLabels({tr("Call site / kernel"), tr("Status"), tr("Count A"), tr("Count B"),
                                        tr("A ms/step"), tr("B ms/step"), tr("Δ ms/step")});
    m_tree = new QTreeView(this);
    m_tree->setObjectName(QStringLiteral("diffTree"));
    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->header()->setSortIndicator(-1, Qt::AscendingOrder);  // tree order (largest first) until a click
    m_tree->setSortingEnabled(true);
    m_tree->setTextElideMode(Qt::ElideMiddle);
    layout->addWidget(m_tree, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    connect(go, &QPushButton::clicked, this,
            [this] { compare(m_a->currentData().toInt(), m_b->currentData().toInt()); });
    connect(m_tree, &QTreeView::doubleClicked, this, &DiffDialog::activate);
    refillRuns();
    resize(1100, 700);
}

void DiffDialog::refillRuns() {
    for (QComboBox* box : {m_a, m_b}) {
        box->clear();
        for (int id : m_runs.runIds())
            if (const RunRecord* r = m_runs.run(id); r && r->dataset) box->addItem(r->label(), id);
    }
    if (m_b->count() > 1) m_b->setCurrentIndex(1);
}

bool DiffDialog::compare(int a, int b) {
    const RunRecord* ra = m_runs.run(a);
    const RunRecord* rb = m_runs.run(b);
    if (!ra || !rb || !ra->dataset || !rb->dataset) return false;
    m_runA = a;
    m_runB = b;
    if (m_a->findData(a) >= 0) m_a->setCurrentIndex(m_a->findData(a));
    if (m_b->findData(b) >= 0) m_b->setCurrentIndex(m_b->findData(b));
    core::RunEntry ea = ra->entry, eb = rb->entry;
    ea.dataset = ra->dataset;
    eb.dataset = rb->dataset;
    m_computing = true;
    m_summary->setText(tr("Comparing %1 with %2…").arg(ra->label(), rb->label()));
    m_job->start<core::StructuralDiff>(
        tr("Structural diff %1 vs %2").arg(ra->label(), rb->label()),
        [ea, eb](const core::JobContext&) { return core::structuralDiff({&ea}, {&eb}); },
        [this](core::StructuralDiff d) {
            m_diff = std::move(d);
            m_computing = false;
            fill();
        },
        [this](const QString& why) {
            m_computing = false;
            m_summary->setText(tr("Not compared: %1").arg(why));
        });
    return true;
}

QString DiffDialog::summary() const { return m_summary->text(); }

void DiffDialog::fill() {
    const core::StructuralDiff& d = m_diff;
    const QString per = d.a.perRun || d.b.perRun ? tr("run") : tr("step");
    QStringList lines;
    lines << tr("Matched %1 nodes of %2 (A) and %3 (B), holding %4% of A's and %5% of B's GPU time per %6; "
                "A: %7 steps, B: %8 steps.")
                 .arg(d.matched)
                 .arg(d.a.nodes)
                 .arg(d.b.nodes)
                 .arg(100 * d.timeShareA, 0, 'f', 1)
                 .arg(100 * d.timeShareB, 0, 'f', 1)
                 .arg(per)
                 .arg(d.a.steps)
                 .arg(d.b.steps);
    for (const auto& m : d.messages) lines << QString::fromStdString(m);
    m_summary->setText(lines.join(QStringLiteral("\n")));
    m_model->setHorizontalHeaderLabels({tr("Call site / kernel"), tr("Status"), tr("Count A"), tr("Count B"),
                                        tr("A ms/%1").arg(per), tr("B ms/%1").arg(per), tr("Δ ms/%1").arg(per)});
    m_model->removeRows(0, m_model->rowCount());
    std::vector<QStandardItem*> first(d.nodes.size(), nullptr);
    for (size_t i = 0; i < d.nodes.size(); ++i) {
        const core::DiffNode& n = d.nodes[i];
        auto* name = new QStandardItem(QString::fromStdString(n.name));
        name->setData(QString::fromStdString(n.name), kSortRole);
        name->setData(static_cast<int>(i), kNodeRole);
        name->setToolTip(QString::fromStdString(n.name));
        name->setEditable(false);
        if (!n.leaf) {
            QFont f = name->font();
            f.setBold(true);
            name->setFont(f);
        }
        auto* status = new QStandardItem(QString::fromStdString(std::string(core::toString(n.status))));
        status->setData(status->text(), kSortRole);
        status->setForeground(statusColour(n.status));
        status->setEditable(false);
        QList<QStandardItem*> row{name,
                                  status,
                                  numberItem(n.countA, QString::number(n.countA, 'g', 4)),
                                  numberItem(n.countB, QString::number(n.countB, 'g', 4)),
                                  numberItem(n.perStepNsA, QString::number(n.perStepNsA / 1e6, 'f', 3)),
                                  numberItem(n.perStepNsB, QString::number(n.perStepNsB / 1e6, 'f', 3)),
                                  numberItem(n.deltaNs(), QString::asprintf("%+.3f", n.deltaNs() / 1e6))};
        row.back()->setForeground(statusColour(n.status));
        first[i] = name;
        if (n.parent < 0) m_model->appendRow(row);
        else first[size_t(n.parent)]->appendRow(row);
    }
    m_tree->expandToDepth(0);
    // GPU work no operator launched is a long flat list: folded, so that the call sites show.
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (m_model->item(r, Name)->text() == QStringLiteral("(no operator)")) m_tree->collapse(m_model->index(r, Name));
    m_tree->setColumnWidth(Name, 520);
    for (int c = Status; c < ColumnCount; ++c) m_tree->resizeColumnToContents(c);
}

void DiffDialog::activate(const QModelIndex& index) {
    const QModelIndex nameIndex = index.siblingAtColumn(Name);
    bool ok = false;
    const int node = m_model->data(nameIndex, kNodeRole).toInt(&ok);
    if (!ok || node < 0 || static_cast<size_t>(node) >= m_diff.nodes.size()) return;
    const core::DiffNode& n = m_diff.nodes[size_t(node)];
    const bool useB = n.firstB.valid();
    const core::DiffInstance& inst = useB ? n.firstB : n.firstA;
    if (!inst.valid()) return;
    const RunRecord* run = m_runs.run(useB ? m_runB : m_runA);
    if (!run || !run->dataset || static_cast<size_t>(inst.rank) >= run->dataset->ranks.size()) return;
    const core::RankData& r = *run->dataset->ranks[size_t(inst.rank)];
    const core::StrId id = inst.gpu ? r.gpu.name[size_t(inst.index)] : r.slices.name[size_t(inst.index)];
    Q_EMIT instanceRequested(run->id, QString::fromStdString(std::string(r.strings.view(id))), inst.ts);
}

}  // namespace strobe::app
