// Shared by the fuzz harnesses: FUZZ_CHECK turns a broken reader promise (a round trip that
// changes the data, an accepted graph that fails its own checks) into an abort, which libFuzzer
// and the replay driver both report as a crash with the message.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                                                 \
            std::fputc('\n', stderr);                                                          \
            std::abort();                                                                      \
        }                                                                                      \
    } while (0)
