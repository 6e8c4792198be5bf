/// @file
/// ROPE_CLONES: compile a hot loop for several x86-64 levels and pick one when the program starts
/// (GCC's target_clones, dispatched by the dynamic loader), so the default build stays portable
/// (baseline x86-64, SSE2) and still uses AVX2/FMA or AVX-512 where the CPU has them. With the opt-in
/// -DROPE_NATIVE=ON build (-march=native) or another compiler, it is empty and the loops are compiled
/// once for the build's target. Functions marked with it must give the same results up to rounding on
/// every level (FMA contraction changes the last bits): tests compare them with tolerances.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(ROPE_NATIVE)
#define ROPE_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ROPE_CLONES
#endif
