/* Run-time CPU dispatch for the portable (wheel) build.
 *
 * A wheel must run on any x86-64, so its code is compiled for a baseline
 * (x86-64-v2, setup.py: FIVEROW_DISPATCH); the hot entry points are also
 * compiled for x86-64-v3 (AVX2, BMI1/2, LZCNT) and the loader picks one clone
 * per entry point from the CPU (GCC target_clones: an ifunc resolved once, at
 * load). `flatten` inlines everything the entry point calls into each clone,
 * so code reached from it, in any file, runs with the clone's instructions
 * (LTO makes every file's bodies visible). pdep, which the compiler never
 * emits by itself, is chosen by bits.h from fiverow_cpu_has_bmi2.
 *
 * FIVEROW_HOT marks such an entry point (a loop over boards or positions
 * that Python calls once per batch). It is empty in a source build, which is
 * compiled for the building CPU as a whole (setup.py: FIVEROW_MARCH), and
 * where the compiler or CPU family has no clones. */
#ifndef FIVEROW_CPU_DISPATCH_H
#define FIVEROW_CPU_DISPATCH_H

#if defined(FIVEROW_DISPATCH) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FIVEROW_CPU_DISPATCH 1
#define FIVEROW_HOT __attribute__((flatten, target_clones("arch=x86-64-v3", "default")))
#else
#define FIVEROW_CPU_DISPATCH 0
#define FIVEROW_HOT
#endif

/* Set before any other code of the library runs (dispatch.c). */
extern int fiverow_cpu_has_bmi2;

/* The name of the code path the CPU takes: "x86-64-v3" or "baseline" in the
 * dispatched build, "compiled" (one path, fixed at build time) otherwise. */
const char *fiverow_cpu_path(void);

#endif
