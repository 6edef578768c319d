#pragma once
// EngineTimelines: the windows one key got from each engine, one lane per engine on a shared
// event-time axis (Compare Engines, issue 20). A pane is drawn at [start, end); a window that
// was emitted more than once (Spark's update mode, Kafka Streams' changelog, a Flink update
// after allowed lateness) is a stack of bars, the first a final or update colour, each
// labelled with what the row said. Lanes that differ from the first lane are marked, so a
// class sees at a glance where two engines disagree. Qt only: the designer converts rows.

#include <QString>
#include <QWidget>

#include <vector>

namespace tideline::live {

struct EnginePane
{
    qint64 start = 0;
    qint64 end = 0;
    QString label;       ///< "n=3 sum=12"
    bool update = false; ///< the row said "emit": "update"
};

struct EngineLane
{
    QString title;                 ///< "Spark"
    QString note;                  ///< "did not run: …" or ""; drawn instead of panes when set
    std::vector<EnginePane> panes; ///< in emission order
};

class EngineTimelines final : public QWidget
{
    Q_OBJECT
public:
    explicit EngineTimelines(QWidget *parent = nullptr);

    /// Shows `lanes` for the key described by `keyText` ("user = \"u7\"").
    void setLanes(std::vector<EngineLane> lanes, const QString &keyText);
    const std::vector<EngineLane> &lanes() const { return m_lanes; }
    /// The lanes (by index) whose panes differ from lane 0's.
    std::vector<int> differingLanes() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::vector<EngineLane> m_lanes;
    QString m_key;
};

} // namespace tideline::live
