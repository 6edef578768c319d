#pragma once
// What the Check panel and the canvas markers show about a check against expected outputs:
// plain Qt-side structs (the designer converts the engine's expected::Report into them).

#include <QList>
#include <QString>
#include <QStringList>

namespace tideline::widgets {

enum class SinkCheckStatus {
    Ok,      ///< equal to its expected file
    Fail,    ///< different
    Missing, ///< no expected file for the sink
    Written, ///< Save outputs as expected wrote its file
    Error,   ///< its output could not be read, or its file not written
};

/// One difference, in stream terms.
struct CheckFinding
{
    enum class Kind { Missing, Extra, Different, Corrupt, Order, More };
    Kind kind = Kind::Missing;
    QString row;    ///< "window [10:00:00.000Z …, …) user=\"ann\" (emit \"final\")"
    QString detail; ///< "events: expected 4, got 3", "expected line 3"
    QString text;   ///< the whole line as `tideline-run --expect` prints it
};

struct SinkCheck
{
    QString sinkId;
    QString kind; ///< "sink.file"
    SinkCheckStatus status = SinkCheckStatus::Ok;
    QString expectedFile; ///< the file it was compared with (or written to)
    QString producer;     ///< "window `sessions`" ("" when not one node's port)
    qint64 expectedRows = 0;
    qint64 actualRows = 0;
    int missing = 0;
    int extra = 0;
    int different = 0;
    bool orderOnly = false;
    QString error; ///< Error: what went wrong
    QList<CheckFinding> findings;
};

struct CheckReport
{
    bool save = false;   ///< Save outputs as expected (files written), not a check
    bool passed = false; ///< every sink equal (or written), no stale file
    QString expectedDir;
    QList<SinkCheck> sinks;
    QStringList notes;      ///< sinks that are not checked (sink.kafka, sink.discard)
    QStringList staleFiles; ///< files in the folder that match no sink (a check fails on them)
    QString error;          ///< the check could not run (unbounded input, failed run): no sinks
    qint64 elapsedMs = 0;
};

} // namespace tideline::widgets
