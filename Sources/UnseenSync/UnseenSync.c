// Synchronisation hidden from Thread Sanitizer (include/UnseenSync.h).
#include "UnseenSync.h"


// Thread Sanitizer's annotations, present only when the program is built with it.
extern void AnnotateIgnoreSyncBegin(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreSyncEnd(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreReadsBegin(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreReadsEnd(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreWritesBegin(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreWritesEnd(const char *file, int line) __attribute__((weak));
extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));
extern void *__tsan_get_current_fiber(void) __attribute__((weak));
extern void *__tsan_create_fiber(unsigned flags) __attribute__((weak));
extern void __tsan_switch_to_fiber(void *fiber, unsigned flags) __attribute__((weak));

/// How deep the calling thread is in `unseen_begin`: a hand-over lifts every level for its release.
static _Thread_local int depth;

void unseen_begin(void) {
    depth += 1;
    if (!AnnotateIgnoreSyncBegin) return;
    AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
}

void unseen_end(void) {
    depth -= 1;
    if (!AnnotateIgnoreSyncEnd) return;
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
    AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
}

/// The harness's fiber of the calling thread, and the thread's own while a turn runs on the harness's.
static _Thread_local void *harness_fiber, *app_fiber;
/// How deep the side not running now (the app's during a turn, the turn's during a call into the app) was in
/// `unseen_begin`: each fiber has ignore levels of its own.
static _Thread_local int other_depth;
/// How many turns the calling thread is in: it is on the harness's fiber while this is above 0.
static _Thread_local int turns;

/// Turns move to the harness's fiber only where this file itself is not instrumented (the race build, with TSan in
/// the app's code only). In a whole TSan build a switch inside an instrumented `unseen_turn_begin` would record its
/// entry on one fiber and its exit on the other, overflowing TSan's shadow stack turn by turn; and there the
/// harness's own frames fill the main queue's history anyway.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNSEEN_HARNESS_INSTRUMENTED 1
#endif
#endif
#ifdef UNSEEN_HARNESS_INSTRUMENTED
static int fibers(void) { return 0; }
#else
static int fibers(void) { return __tsan_switch_to_fiber != 0; }
#endif

static void switch_to(void *fiber) {
    int here = depth;
    depth = other_depth;
    other_depth = here;
    __tsan_switch_to_fiber(fiber, 1 /* __tsan_switch_to_fiber_no_sync: no order between the two */);
}

void unseen_turn_begin(void) {
    if (turns++ == 0 && fibers()) {
        if (!harness_fiber) harness_fiber = __tsan_create_fiber(0);
        app_fiber = __tsan_get_current_fiber();
        switch_to(harness_fiber);
    }
    unseen_begin();
}

void unseen_turn_end(void) {
    unseen_end();
    if (--turns == 0 && fibers()) switch_to(app_fiber);
}

int unseen_app_call_begin(void) {
    int suspended = turns;
    if (suspended > 0 && fibers()) switch_to(app_fiber);
    turns = 0;
    return suspended;
}

void unseen_app_call_end(int suspended) {
    if (suspended > 0 && fibers()) switch_to(harness_fiber);
    turns = suspended;
}

/// Runs TSan's `sync` on `token` as a thread that ignores nothing: TSan
/// drops a release or an acquire made while the thread ignores synchronisation.
static void seen(void (*sync)(void *), const void *token) {
    if (!sync) return;
    for (int level = 0; level < depth; level++) AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
    sync((void *)token);
    for (int level = 0; level < depth; level++) AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
}

void unseen_hand_over(const void *token) { seen(__tsan_release, token); }

void unseen_take_over(const void *token) { seen(__tsan_acquire, token); }

extern void __tsan_func_entry(void *call_pc) __attribute__((weak));
extern void __tsan_func_exit(void) __attribute__((weak));

void unseen_frame_enter(void) {
    if (__tsan_func_entry) __tsan_func_entry(__builtin_return_address(0));
}

void unseen_frame_exit(void) {
    if (__tsan_func_exit) __tsan_func_exit();
}
