#include "decimate.hpp"

#include <algorithm>

namespace tideline::live {

QList<QPointF> decimate(const QList<QPointF> &points, int pixels)
{
    pixels = std::max(pixels, 1);
    if (points.size() <= 2 * pixels)
        return points;
    const double x0 = points.front().x();
    const double x1 = points.back().x();
    const double width = (x1 - x0) / pixels;
    QList<QPointF> out;
    out.reserve(2 * pixels + 2);
    out.push_back(points.front());
    qsizetype i = 1;
    const qsizetype last = points.size() - 1;
    while (i < last) {
        const int bucket = width > 0 ? static_cast<int>((points[i].x() - x0) / width) : 0;
        const double end = x0 + (bucket + 1) * width;
        qsizetype lo = i, hi = i;
        qsizetype j = i;
        for (; j < last && (points[j].x() < end || width <= 0); ++j) {
            if (points[j].y() < points[lo].y())
                lo = j;
            if (points[j].y() > points[hi].y())
                hi = j;
        }
        if (j == i) // a point exactly on the boundary: take it alone
            ++j;
        if (lo == hi)
            out.push_back(points[lo]);
        else {
            out.push_back(points[std::min(lo, hi)]);
            out.push_back(points[std::max(lo, hi)]);
        }
        i = j;
    }
    out.push_back(points.back());
    return out;
}

} // namespace tideline::live
