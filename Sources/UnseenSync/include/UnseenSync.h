#ifndef UNSEEN_SYNC_H
#define UNSEEN_SYNC_H

// Every seam of the harness is Linux's: ELF symbol interposition into libdispatch and glibc. Elsewhere it would
// see none of the app's work and measure wrong figures, so the build stops here (README, "Platforms").
#if !defined(__linux__)
#error "OperationLessons measures through Linux-only seams (ELF symbol interposition into libdispatch and glibc): build it on Linux, e.g. in the official Swift container image (README, \"Platforms\")."
#endif

// The harness's synchronisation, hidden from Thread Sanitizer
// (docs/architecture.md, "The race run"). The story clock, the network and
// the instruments take locks on the app's threads and on the main queue; seen
// by TSan, each lock would order every app thread after the main queue's
// last look and hide the app's own races. Inside `unseen_begin` …
// `unseen_end` the calling thread's locks, waits and memory accesses are
// invisible to TSan; outside a TSan build these do nothing.

/// From now until the matching `unseen_end`, TSan ignores what the calling
/// thread synchronises on and reads and writes. Nests.
void unseen_begin(void);
void unseen_end(void);

/// One turn of the harness on the main queue, until `unseen_turn_end`: to TSan
/// the calling thread is another thread meanwhile (a fiber of the harness's),
/// which ignores everything as in `unseen_begin`. Ignored events still take
/// room in TSan's short history of a thread (a lock's), and the main queue's
/// turns take many: run on the app's own thread, they would make TSan forget
/// the app's reads before a download writes. Nests.
void unseen_turn_begin(void);
void unseen_turn_end(void);

/// A call from a turn into the app's code (its controller, data source or
/// delegate), until `unseen_app_call_end` with what this returns: the app's
/// own thread again, seen as the app's code outside a turn is.
int unseen_app_call_begin(void);
void unseen_app_call_end(int suspended);

/// What the calling thread has done so far happens before what follows
/// `unseen_take_over` with the same token, on any thread: the one order the
/// harness must keep when it hands the app's work on (a fetch's answer
/// handed to its queue), kept even inside `unseen_begin`.
void unseen_hand_over(const void *token);
void unseen_take_over(const void *token);

/// Puts the caller in the stack TSan keeps of the calling thread, until
/// `unseen_frame_exit`: code built without TSan (the harness, in a race build)
/// is not in it by itself, and a race report says where the app's accesses
/// were made from (a turn of the harness on the main queue) by its frames.
void unseen_frame_enter(void);
void unseen_frame_exit(void);

#endif
