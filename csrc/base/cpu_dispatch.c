/* The CPU features read once, when the library loads (dispatch.h). */
#include "base/cpu_dispatch.h"

int fiverow_cpu_has_bmi2 = 0;

#if FIVEROW_CPU_DISPATCH
__attribute__((constructor)) static void read_cpu_features(void)
{
    __builtin_cpu_init();
    fiverow_cpu_has_bmi2 = __builtin_cpu_supports("bmi2") != 0;
}

const char *fiverow_cpu_path(void)
{
    /* the clones' own test: target_clones picks arch=x86-64-v3 by this */
    return __builtin_cpu_supports("x86-64-v3") ? "x86-64-v3" : "baseline";
}
#else
const char *fiverow_cpu_path(void)
{
    return "compiled";
}
#endif
