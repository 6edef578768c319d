// A late record made again from its line or its generator index (made_again.hpp).

#include "runtime/made_again.hpp"

#include "operators/sources/file_chunks.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

namespace tideline::parallel {

Record MadeAgain::make()
{
    Record r;
    if (m_round.source) {
        m_round.source->makeInto(m_round.first + item->index, r);
        r.time = item->time;
        return r;
    }
    // A replay's config has no file (fd -1): its lines were copied into the round.
    const bool fromFile = m_round.file->fd >= 0;
    std::string_view line;
    if (fromFile) {
        readLine();
        line = m_line;
    } else {
        line = std::string_view(m_round.text).substr(item->line, item->lineSize);
    }
    std::string error;
    if (!m_parser)
        m_parser = std::make_unique<RecordParser>();
    if (!m_round.file->parse(line, r, *m_parser, error)) { // it parsed on the chunk's thread
        if (fromFile)
            changed("it no longer parses (" + error + ")");
        throw std::logic_error("a line parsed on a worker does not parse again: " + error);
    }
    Timestamp t = kMinTime;
    if (fromFile && (!m_round.watermark->eventTime(r, t, error) || t != item->time))
        changed("its event time is not the one read before");
    r.time = item->time;
    return r;
}

void MadeAgain::readLine()
{
    m_line.resize(item->lineSize);
    std::size_t got = 0;
    while (got < m_line.size()) {
        const ssize_t n = ::pread(m_round.file->fd, m_line.data() + got, m_line.size() - got,
                                  static_cast<off_t>(item->line + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw std::runtime_error("reading " + m_round.file->path + ": " + std::strerror(errno));
        if (n == 0)
            changed("the file is shorter now");
        got += static_cast<std::size_t>(n);
    }
}

void MadeAgain::changed(const std::string &what) const
{
    throw std::runtime_error(
        m_round.file->path + ": the line at byte " + std::to_string(item->line)
        + " changed while the pipeline read it: " + what
        + ". At parallelism above 1 a late record is read again from the file, and a file a "
          "pipeline reads may only grow. Fix: write a new file and move it into place (or "
          "only append to this one), or run at parallelism 1");
}

} // namespace tideline::parallel
