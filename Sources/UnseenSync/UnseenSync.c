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
