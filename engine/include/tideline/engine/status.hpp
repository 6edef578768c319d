#pragma once
// Status: the outcome of something that can fail, checked by the caller (absl::Status,
// rocksdb::Status, without codes: every failure here is reported to a person, never branched
// on). The class is [[nodiscard]], so a Status returned by value and dropped is a compiler
// warning (an error under -Werror); `(void)` marks the few places that drop one on purpose,
// with a comment saying where the failure went instead.

#include <string>
#include <utility>

namespace tideline {

class [[nodiscard]] Status
{
public:
    /// Success.
    Status() = default;
    /// A failure; `message` names what failed and why (it is shown as is).
    [[nodiscard]] static Status error(std::string message)
    {
        Status s;
        s.m_message = std::move(message);
        s.m_failed = true;
        return s;
    }

    [[nodiscard]] bool ok() const { return !m_failed; }
    /// "" on success.
    [[nodiscard]] const std::string &message() const { return m_message; }
    /// The same failure with `prefix` in front ("cannot restore from X: " + message).
    [[nodiscard]] Status prefixed(const std::string &prefix) const
    {
        return ok() ? *this : error(prefix + m_message);
    }

private:
    std::string m_message;
    bool m_failed = false;
};

} // namespace tideline
