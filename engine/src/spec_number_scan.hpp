#pragma once
// NumberScan (internal to spec_parse.cpp): the SAX pre-pass that finds the numbers of a
// pipeline file nlohmann's DOM cannot hold, and names their JSON path.

#include <tideline/engine/spec.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace tideline::detail {

/// A first pass over the file with nlohmann's SAX interface, before the DOM is built: it
/// knows the JSON path of every value, so a number the DOM cannot hold (1e400 throws
/// out_of_range inside nlohmann; 1e-400 would silently be 0; an integer beyond 64 bits would
/// silently become a double) is reported where it is. Syntax errors are left to the DOM
/// parse, whose messages name line and column.
class NumberScan
{
public:
    using number_integer_t = Json::number_integer_t;
    using number_unsigned_t = Json::number_unsigned_t;
    using number_float_t = Json::number_float_t;
    using string_t = Json::string_t;
    using binary_t = Json::binary_t;

    explicit NumberScan(std::string_view text)
        : m_text(text)
    {
    }

    std::optional<Diagnostic> problem;
    std::vector<Diagnostic> warnings; ///< duplicate keys (the DOM keeps the last value)
    bool syntaxError = false;

    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(number_integer_t) { return value(); }
    bool number_unsigned(number_unsigned_t) { return value(); }
    bool number_float(number_float_t v, const string_t &text)
    {
        value();
        if (text.find_first_of(".eE") == string_t::npos)
            return fail(m_path, "the integer " + text
                                    + " does not fit in 64 bits (integers are at most "
                                      "18446744073709551615; write a decimal for an "
                                      "approximate value)");
        if (v == 0 && text.find_first_of("123456789") < text.find_first_of("eE"))
            return fail(m_path,
                        "the number " + text + " is too small for a double: it would be read as 0");
        return true;
    }
    bool string(string_t &) { return value(); }
    bool binary(binary_t &) { return value(); }
    bool start_object(std::size_t)
    {
        value();
        m_frames.push_back({false, 0, m_path.size()});
        return true;
    }
    bool key(string_t &k)
    {
        Frame &f = m_frames.back();
        if (!f.keys.insert(k).second) {
            Diagnostic d;
            d.severity = Diagnostic::Severity::Warning;
            d.path = m_path.substr(0, f.base);
            d.path += (d.path.empty() ? "" : ".") + k;
            d.message = "duplicate key `" + k + "`: the last value is used";
            warnings.push_back(std::move(d));
        }
        m_path.resize(f.base);
        if (!m_path.empty())
            m_path += '.';
        m_path += k;
        return true;
    }
    bool end_object() { return pop(); }
    bool start_array(std::size_t)
    {
        value();
        m_frames.push_back({true, -1, m_path.size()});
        return true;
    }
    bool end_array() { return pop(); }
    bool parse_error(std::size_t position,
                     const std::string &token,
                     const nlohmann::detail::exception &ex)
    {
        if (ex.id != 406) { // not a number out of range: a syntax error, reported by the DOM pass
            syntaxError = true;
            return false;
        }
        std::string at = m_path;
        if (!m_frames.empty() && m_frames.back().array) // the element that failed
            at = m_path.substr(0, m_frames.back().base) + "["
                 + std::to_string(m_frames.back().index + 1) + "]";
        // position is just past the token: report where it starts.
        auto [line, col] = lineColumn(position >= token.size() ? position - token.size() : 0);
        return fail(at, "the number " + token
                            + " is too large for a double (beyond 1.8e308), at line "
                            + std::to_string(line) + ", column " + std::to_string(col));
    }

private:
    struct Frame
    {
        bool array;
        long long index;                           ///< arrays: index of the current element
        std::size_t base;                          ///< m_path's length for the container itself
        std::unordered_set<std::string> keys = {}; ///< objects: keys seen
    };

    /// A value starts: in an array, it is the next element.
    bool value()
    {
        if (!m_frames.empty() && m_frames.back().array) {
            Frame &f = m_frames.back();
            ++f.index;
            m_path.resize(f.base);
            m_path += "[" + std::to_string(f.index) + "]";
        }
        return true;
    }
    bool pop()
    {
        m_path.resize(m_frames.back().base);
        m_frames.pop_back();
        return true;
    }
    bool fail(const std::string &path, std::string message)
    {
        Diagnostic d;
        d.path = path;
        d.message = std::move(message);
        problem = std::move(d);
        return false;
    }
    std::pair<int, int> lineColumn(std::size_t byte) const
    {
        int line = 1, col = 1;
        for (std::size_t i = 0; i < byte && i < m_text.size(); ++i) {
            if (m_text[i] == '\n') {
                ++line;
                col = 1;
            } else
                ++col;
        }
        return {line, col};
    }

    std::string_view m_text;
    std::vector<Frame> m_frames;
    std::string m_path;
};

} // namespace tideline::detail
