// Errors as values: a tiny Expected<T> so that every fallible kernel-side API (file parsing,
// generation, graph building) returns either its value or a message a user understands.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace ps {

// What kind of failure an Error is, for callers that act on it (a cancelled search is not a
// failure to report; an I/O error may be retried elsewhere), never to be told from the text.
enum class ErrorKind : std::uint8_t {
    Invalid,    // the input or request is wrong (the default)
    Io,         // a file could not be read or written
    Device,     // the GPU or its driver failed
    Cancelled,  // the user asked to stop
    Internal,   // a bug: a check that should never fail did
};

struct Error {
    std::string message;
    ErrorKind kind = ErrorKind::Invalid;
};

inline Error cancelled_error() { return Error{"cancelled", ErrorKind::Cancelled}; }

template <class T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : m_data(std::in_place_index<0>, std::move(value)) {}
    Expected(Error error) : m_data(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_data); }
    const T& value() const& { return std::get<0>(m_data); }
    T value() && { return std::get<0>(std::move(m_data)); }  // by value: no dangling temporaries
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const { return std::get<1>(m_data); }

private:
    std::variant<T, Error> m_data;
};

template <>
class [[nodiscard]] Expected<void> {
public:
    Expected() = default;
    Expected(Error error) : m_error(std::move(error)), m_ok(false) {}
    bool ok() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    const Error& error() const { return m_error; }

private:
    Error m_error;
    bool m_ok = true;
};

}  // namespace ps
