// Each launch of the app is a new process, and Swift seeds `hashValue`, `Set`
// and `Dictionary` anew in every process: a relaunch must not see the seed of
// the launch before it (a file named by `url.hashValue` is not found again).
// The checker runs every program with SWIFT_DETERMINISTIC_HASHING=1 so that the
// same flags give the same figures; then every process would share seed 0. So
// launch k > 1 (OPERATIONLESSONS_LAUNCH, set by the run that relaunches) gets a
// seed derived from k, written into the runtime's hashing parameters before any
// Swift code runs: this constructor runs after libswiftCore's own (which fills
// them in) and before `main`. Launch 1 keeps the runtime's seed.
// A toolchain fact, not an API: `_swift_stdlib_Hashing_parameters` is
// libswiftCore's (SwiftShims, GlobalObjects.h), weak here so a runtime without
// it is noticed (`seam_launch_seed_is_available`) instead of failing to load.

#include "DispatchSeam.h"

#include <stdbool.h>
#include <stdlib.h>

struct SwiftHashingParameters {
    uint64_t seed0;
    uint64_t seed1;
    bool deterministic;
};

extern struct SwiftHashingParameters _swift_stdlib_Hashing_parameters __attribute__((weak));

static int launch_number = 1;

/// SplitMix64: spreads a small launch number over all 64 bits.
static uint64_t spread(uint64_t value) {
    value += 0x9E3779B97F4A7C15ull;
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
    return value ^ (value >> 31);
}

__attribute__((constructor)) static void seed_this_launch(void) {
    const char *launch = getenv(SEAM_LAUNCH_VARIABLE);
    if (launch == NULL) return;
    int number = atoi(launch);
    if (number < 1) return;
    launch_number = number;
    if (number == 1 || &_swift_stdlib_Hashing_parameters == NULL) return;
    // A deterministic run stays deterministic: the same seed for launch k in every run.
    if (_swift_stdlib_Hashing_parameters.deterministic) {
        _swift_stdlib_Hashing_parameters.seed0 = spread((uint64_t)number);
        _swift_stdlib_Hashing_parameters.seed1 = spread((uint64_t)number << 32);
    }
}

int seam_launch_seed_is_available(void) {
    return &_swift_stdlib_Hashing_parameters != NULL && !seam_breaks("launch-seed");
}

int seam_launch_seed_read(uint64_t *seed0, int *deterministic) {
    if (!seam_launch_seed_is_available()) return 0;
    *seed0 = _swift_stdlib_Hashing_parameters.seed0;
    *deterministic = _swift_stdlib_Hashing_parameters.deterministic;
    return 1;
}

uint64_t seam_launch_seed_expected(int launch) { return launch > 1 ? spread((uint64_t)launch) : 0; }

int seam_launch_number(void) { return launch_number; }
