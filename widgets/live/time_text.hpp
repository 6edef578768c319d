#pragma once
// Human-readable times for the live views: event times as UTC clock times, lags as durations.

#include <QString>

#include <optional>

namespace tideline::live {

/// "12:00:03.250" (UTC; the date is added when `withDate`), "−∞" for nullopt, "+∞ (ended)".
QString eventTimeText(std::optional<qint64> ms, bool withDate = false);
/// "250 ms", "4.2 s", "3 min 05 s", "2 h 10 min".
QString durationText(qint64 ms);
/// "1.2 k", "35", "4.5 M" for counts and rates.
QString countText(double v);
/// "1 record", "0 records", "12,345 records": a count with the noun that agrees with it.
QString countNoun(qint64 n, const QString &one, const QString &many);
/// "512 B", "3.4 KiB", "1.2 MiB".
QString bytesText(qint64 bytes);

} // namespace tideline::live
