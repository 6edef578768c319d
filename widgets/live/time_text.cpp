#include "time_text.hpp"

#include "live_types.hpp"

#include <QDateTime>

#include <cmath>

namespace tideline::live {

QString eventTimeText(std::optional<qint64> ms, bool withDate)
{
    if (!ms)
        return QStringLiteral("−∞");
    if (*ms == kEnded)
        return QStringLiteral("+∞ (ended)");
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(*ms, Qt::UTC);
    return t.toString(withDate ? QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")
                               : QStringLiteral("HH:mm:ss.zzz"));
}

QString durationText(qint64 ms)
{
    const qint64 a = std::llabs(ms);
    const QString sign = ms < 0 ? QStringLiteral("−") : QString();
    if (a < 1000)
        return sign + QStringLiteral("%1 ms").arg(a);
    if (a < 60'000)
        return sign
               + (a % 1000 == 0
                      ? QStringLiteral("%1 s").arg(a / 1000)
                      : QStringLiteral("%1 s").arg(static_cast<double>(a) / 1000.0, 0, 'f', 1));
    if (a < 3'600'000)
        return sign
               + QStringLiteral("%1 min %2 s")
                     .arg(a / 60'000)
                     .arg((a / 1000) % 60, 2, 10, QLatin1Char('0'));
    if (a < 86'400'000LL * 2)
        return sign
               + QStringLiteral("%1 h %2 min")
                     .arg(a / 3'600'000)
                     .arg((a / 60'000) % 60, 2, 10, QLatin1Char('0'));
    return sign + QStringLiteral("%1 d").arg(a / 86'400'000LL);
}

QString countText(double v)
{
    const double a = std::fabs(v);
    if (a >= 1e6)
        return QString::number(v / 1e6, 'f', 1) + QStringLiteral(" M");
    if (a >= 1e4)
        return QString::number(v / 1e3, 'f', 1) + QStringLiteral(" k");
    if (a >= 100 || v == std::floor(v))
        return QString::number(std::llround(v));
    return QString::number(v, 'f', 1);
}

QString countNoun(qint64 n, const QString &one, const QString &many)
{
    // Digits grouped by thousands (C locale: "12,345"), whatever the system locale is.
    QString digits = QString::number(std::llabs(n));
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return (n < 0 ? QStringLiteral("−") : QString()) + digits + QLatin1Char(' ')
           + (n == 1 ? one : many);
}

QString bytesText(qint64 bytes)
{
    if (bytes < 1024)
        return QStringLiteral("%1 B").arg(bytes);
    if (bytes < 1024 * 1024)
        return QStringLiteral("%1 KiB").arg(static_cast<double>(bytes) / 1024.0, 0, 'f', 1);
    return QStringLiteral("%1 MiB").arg(static_cast<double>(bytes) / (1024.0 * 1024.0), 0, 'f', 1);
}

} // namespace tideline::live
