/// @file
/// ROPE_ADDRESS_SANITIZER is 1 in a build with AddressSanitizer, under GCC (which defines
/// __SANITIZE_ADDRESS__) and clang (which reports it through __has_feature), else 0. A file compiled without the
/// instrumentation into a program linked with its runtime (the sanitizer tree's unit tests: Makefile, sanitize-build)
/// is told so by -DROPE_ADDRESS_SANITIZER=1: the runtime's address space is the program's all the same.
#pragma once

#ifndef ROPE_ADDRESS_SANITIZER
#if defined(__SANITIZE_ADDRESS__)
#define ROPE_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROPE_ADDRESS_SANITIZER 1
#endif
#endif
#endif
#ifndef ROPE_ADDRESS_SANITIZER
#define ROPE_ADDRESS_SANITIZER 0
#endif
