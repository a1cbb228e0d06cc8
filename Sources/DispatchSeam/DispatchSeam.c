// The Dispatch seam (include/DispatchSeam.h). This program defines
// dispatch_async and its relatives itself: the dynamic linker binds every
// call to them, Foundation's OperationQueue included, to these, which count
// the run's work and forward it to libdispatch's own (or, under Thread
// Sanitizer, to its interceptor, so it still sees the hand-over).
#define _GNU_SOURCE
#include "DispatchSeam.h"
#include "UnseenSync.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// MARK: facts broken on purpose (docs/toolchain-contract.md)

/// The facts `OPERATION_LESSONS_BREAK` (a comma-separated list, for the
/// toolchain contract's tests only) tells the seams to act as if the toolchain
/// no longer had them, so that a test sees the start-up probe refuse.
static const char *const breakable[] = {
    "dispatch-seam", "main-queue", "overcommit", "block-abi", "rename", "task-hook", "task-hook-alone", "launch-seed",
};
enum { break_dispatch = 1, break_main_queue = 2, break_overcommit = 4, break_block_abi = 8, break_rename = 16 };
static unsigned broken_facts;
static pthread_once_t broken_facts_read = PTHREAD_ONCE_INIT;

static void read_broken_facts(void) {
    const char *setting = getenv("OPERATION_LESSONS_BREAK");
    for (size_t index = 0; setting && index < sizeof breakable / sizeof breakable[0]; index++) {
        size_t length = strlen(breakable[index]);
        for (const char *at = strstr(setting, breakable[index]); at; at = strstr(at + 1, breakable[index])) {
            if ((at == setting || at[-1] == ',') && (at[length] == ',' || at[length] == 0)) broken_facts |= 1u << index;
        }
    }
}

static int broken(unsigned fact) {
    pthread_once(&broken_facts_read, read_broken_facts);
    return (broken_facts & fact) != 0;
}

int seam_breaks(const char *fact) {
    for (size_t index = 0; index < sizeof breakable / sizeof breakable[0]; index++) {
        if (strcmp(fact, breakable[index]) == 0) return broken(1u << index);
    }
    return 0;
}

typedef struct dispatch_queue_s *dispatch_queue_t;
typedef struct dispatch_group_s *dispatch_group_t;
typedef struct dispatch_semaphore_s *dispatch_semaphore_t;
typedef uint64_t dispatch_time_t;
#define DISPATCH_TIME_NOW (0ull)
#define DISPATCH_TIME_FOREVER (~0ull)
typedef void (*dispatch_function_t)(void *);
typedef void *dispatch_block_t;
extern struct dispatch_queue_s _dispatch_main_q;
static dispatch_queue_t main_q(void);
extern void dispatch_queue_set_specific(dispatch_queue_t, const void *, void *, void (*)(void *));
extern void *dispatch_get_specific(const void *);

// The block ABI: a block is called through its `invoke`.
struct block_layout {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *);
};
extern void *_Block_copy(const void *);
extern void _Block_release(const void *);

/// One counted submission, from the moment it is handed to Dispatch until it returns.
typedef struct work {
    struct work *previous, *next;  // off the main queue: on the run's `pool`, in submission order
    uint64_t run, serial;
    int on_main_queue, parked;
    int from_turns;  // submitted by the run's turns, or by work that was
    int waits_for_thread;  // at `take_thread`, until the harness gives it one
    uint64_t started_ns;  // on the main queue: when it began, on CLOCK_MONOTONIC
    dispatch_block_t block;  // or:
    dispatch_function_t function;
    void *context;
} work;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

// The seam's lock is taken by every counted block; seen by Thread Sanitizer,
// it would order the app's threads and hide their races. So TSan sees
// neither the seam's synchronisation nor its bookkeeping (UnseenSync), and a
// semaphore the harness hands out is acquired by the thread it is handed to.
static void lock_seam(void) {
    unseen_begin();
    pthread_mutex_lock(&lock);
}

static void unlock_seam(void) {
    pthread_mutex_unlock(&lock);
    unseen_end();
}
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static _Atomic uint64_t current_run;
static uint64_t runs, serials, generation;
static seam_counts counts;

/// The run's counted work off the main queue that has not finished, in the
/// order it was submitted: the first `seam_device_threads` of it hold a thread
/// (`take_thread`), the rest wait for one, as on a device whose pool is full.
static struct {
    work *first, *last;
} pool;
static pthread_cond_t thread_given = PTHREAD_COND_INITIALIZER;

/// Counted work waiting on a semaphore, in the order the work was submitted.
/// The harness hands out what the semaphores hold at idle moments
/// (`seam_grant_semaphores`), so which waiter goes first is the story's
/// choice, not the scheduler's.
typedef struct semaphore_waiter {
    struct semaphore_waiter *next;
    dispatch_semaphore_t semaphore;
    work *item;
    uint64_t serial;
    int granted, abandoned;
    pthread_cond_t wake;
} semaphore_waiter;
static semaphore_waiter *semaphore_waiters;

/// What the calling thread runs: a counted block, the run's own turn
/// (`run_marker`), the harness's own work (`harness_marker`), or nothing
/// the seam counts (NULL).
static _Thread_local const work *current;
static _Thread_local work run_marker;
static const work harness_marker;

/// What the probes see: every submission the seam was handed, those for the
/// main queue, every `rename`.
static _Atomic uint64_t submissions_seen, main_queue_submissions_seen, renames_seen;

/// Files the run's main-queue work put in place, and the longest such work had run by then.
static _Atomic size_t main_queue_files;
static _Atomic uint64_t main_queue_file_stall_ns;

// MARK: libdispatch's own functions

typedef void (*async_f_t)(dispatch_queue_t, void *, dispatch_function_t);
typedef void (*async_t)(dispatch_queue_t, dispatch_block_t);
typedef void (*group_async_f_t)(dispatch_group_t, dispatch_queue_t, void *, dispatch_function_t);
typedef void (*group_async_t)(dispatch_group_t, dispatch_queue_t, dispatch_block_t);

static void *next_symbol(const char *name, const char *interceptor) {
    void *found = dlsym(RTLD_DEFAULT, interceptor);
    return found ? found : dlsym(RTLD_NEXT, name);
}

#define REAL(type, name) \
    static type real_##name(void) { \
        static _Atomic(type) cached; \
        type found = atomic_load_explicit(&cached, memory_order_relaxed); \
        if (!found) { \
            found = (type)next_symbol(#name, "__interceptor_" #name); \
            atomic_store_explicit(&cached, found, memory_order_relaxed); \
        } \
        return found; \
    }
REAL(async_f_t, dispatch_async_f)
REAL(async_t, dispatch_async)
REAL(async_f_t, dispatch_barrier_async_f)
REAL(async_t, dispatch_barrier_async)
REAL(group_async_f_t, dispatch_group_async_f)
REAL(group_async_t, dispatch_group_async)
REAL(async_f_t, dispatch_sync_f)
REAL(async_t, dispatch_sync)
typedef long (*semaphore_wait_t)(dispatch_semaphore_t, dispatch_time_t);
REAL(semaphore_wait_t, dispatch_semaphore_wait)
typedef dispatch_queue_t (*queue_create_t)(const char *, const void *, dispatch_queue_t);
REAL(queue_create_t, dispatch_queue_create_with_target)
extern dispatch_queue_t dispatch_get_global_queue(long qos_class, unsigned long flags);

// MARK: threads for the run's work

/// libdispatch on Linux gives a global queue that does not overcommit about
/// one more thread a second once its threads block; an overcommitting one
/// starts a thread for each block that finds none idle, as a phone's pool of
/// 64 does for blocking work. The run's own queues and blocks get the
/// overcommitting pool, so no run waits seconds for threads (and the story,
/// which waits for the app's work to reach the network, does not depend on
/// how fast the pool grows).
static dispatch_queue_t overcommitting(dispatch_queue_t queue) {
    if (broken(break_overcommit)) return queue;
    static const long qos_classes[] = {0x21, 0x19, 0x15, 0x11, 0x09};
    for (size_t index = 0; index < sizeof qos_classes / sizeof qos_classes[0]; index++) {
        if (queue == dispatch_get_global_queue(qos_classes[index], 0)) {
            return dispatch_get_global_queue(qos_classes[index], 2);  // DISPATCH_QUEUE_OVERCOMMIT
        }
    }
    return queue;
}

static int submitter_counts(void);

dispatch_queue_t dispatch_queue_create_with_target(const char *label, const void *attributes, dispatch_queue_t target) {
    if (submitter_counts()) {
        // A queue of the run's: its blocks run on the overcommitting pool.
        target = target ? overcommitting(target) : dispatch_get_global_queue(0x15, 2);
    }
    return real_dispatch_queue_create_with_target()(label, attributes, target);
}

dispatch_queue_t dispatch_queue_create(const char *label, const void *attributes) {
    return dispatch_queue_create_with_target(label, attributes, NULL);
}

// MARK: counting (under `lock`)

static void note_change_locked(void) {
    generation += 1;
    pthread_cond_broadcast(&changed);
}


static int submitter_counts(void) {
    uint64_t run = atomic_load_explicit(&current_run, memory_order_relaxed);
    return run != 0 && current != NULL && current->run == run;
}

int seam_runs_the_runs_work(void) { return submitter_counts(); }

/// Marks the main queue, so that a thread can tell it is running the main queue's work.
static char main_queue_key;
static pthread_once_t main_queue_marked = PTHREAD_ONCE_INIT;
static void mark_main_queue(void) { dispatch_queue_set_specific(&_dispatch_main_q, &main_queue_key, &main_queue_key, NULL); }

/// Whether the calling thread runs a block of the main queue's.
static int on_main_queue(void) {
    pthread_once(&main_queue_marked, mark_main_queue);
    return dispatch_get_specific(&main_queue_key) == &main_queue_key;
}

/// Whether work submitted to `queue` now is the run's: what the run's work
/// submits, and, while a run is on, what any work of the main queue's submits
/// to it but the harness's own. (The main queue is one for the whole process:
/// a serial `OperationQueue.main` hands the run's next operation to Dispatch
/// from whatever operation ran before it, the run's or not.) A pool thread's
/// submission for the main queue, outside the run's work, is not the run's: in
/// a test process it is another test's task hopping to the main actor.
static int submission_counts(dispatch_queue_t queue) {
    if (submitter_counts()) return 1;
    return queue == main_q() && current != &harness_marker
        && atomic_load_explicit(&current_run, memory_order_relaxed) != 0 && (current != NULL || on_main_queue());
}

/// A record of counted work for `queue`, or NULL when the caller's work is
/// not counted. (Counted work for a global queue goes to its overcommitting twin.)
static work *counted_work(dispatch_queue_t *target) {
    if (broken(break_dispatch)) return NULL;
    atomic_fetch_add_explicit(&submissions_seen, 1, memory_order_relaxed);
    if (*target == main_q()) atomic_fetch_add_explicit(&main_queue_submissions_seen, 1, memory_order_relaxed);
    if (!submission_counts(*target)) return NULL;
    dispatch_queue_t queue = *target = overcommitting(*target);
    work *item = calloc(1, sizeof(work));
    if (!item) return NULL;
    item->on_main_queue = queue == main_q();
    item->from_turns = current == &run_marker || (current && current != &harness_marker && current->from_turns);
    lock_seam();
    item->run = atomic_load_explicit(&current_run, memory_order_relaxed);
    item->serial = ++serials;
    if (!item->on_main_queue) {
        item->previous = pool.last;
        if (pool.last) pool.last->next = item; else pool.first = item;
        pool.last = item;
    }
    if (item->on_main_queue) counts.main_queue += 1; else counts.elsewhere += 1;
    if (item->from_turns && !item->on_main_queue) counts.turns_elsewhere += 1;
    note_change_locked();
    unlock_seam();
    return item;
}

static void park_locked(work *item, int parked) {
    if (item->parked == parked) return;
    item->parked = parked;
    size_t *count = item->on_main_queue ? &counts.main_queue_parked : &counts.elsewhere_parked;
    *count = parked ? *count + 1 : *count - 1;
    if (item->from_turns && !item->on_main_queue) {
        counts.turns_elsewhere_parked = parked ? counts.turns_elsewhere_parked + 1 : counts.turns_elsewhere_parked - 1;
    }
    note_change_locked();
}

// MARK: the device's threads (under `lock`)

/// Whether `item`, of the run's pool, is among its first `seam_device_threads`.
static int holds_thread_locked(const work *item) {
    size_t earlier = 0;
    for (const work *other = pool.first; other && other != item; other = other->next) {
        if (++earlier == seam_device_threads) return 0;
    }
    return 1;
}

/// Lets every waiter among the pool's first `seam_device_threads` start
/// (`abandon`: every waiter, the run is over): called whenever work of the
/// pool finishes, so a thread freed goes at once to the earliest waiter, as
/// a phone's pool gives it.
static void give_threads_locked(int abandon) {
    size_t given = 0, rank = 0;
    for (work *item = pool.first; item && (abandon || rank < seam_device_threads); item = item->next, rank++) {
        if (!item->waits_for_thread) continue;
        item->waits_for_thread = 0;
        park_locked(item, 0);
        given += 1;
    }
    if (given) pthread_cond_broadcast(&thread_given);
}

static void finished(work *item) {
    lock_seam();
    if (item->run == atomic_load_explicit(&current_run, memory_order_relaxed)) {
        park_locked(item, 0);
        if (!item->on_main_queue) {
            if (item->previous) item->previous->next = item->next; else pool.first = item->next;
            if (item->next) item->next->previous = item->previous; else pool.last = item->previous;
            give_threads_locked(0);
        }
        if (item->on_main_queue) counts.main_queue -= 1; else counts.elsewhere -= 1;
        if (item->from_turns && !item->on_main_queue) counts.turns_elsewhere -= 1;
        note_change_locked();
    }
    unlock_seam();
    free(item);
}

/// Runs counted work on the thread Dispatch gave it.
static uint64_t monotonic_ns(void);

/// Calls a block through the ABI declared above.
static void invoke_block(dispatch_block_t block) {
    if (!broken(break_block_abi)) ((struct block_layout *)block)->invoke(block);
}

static void invoke_work(work *item) {
    if (item->block) {
        invoke_block(item->block);
        _Block_release(item->block);
    } else {
        item->function(item->context);
    }
}

/// Main-queue work runs in this frame, which a race build's report shows
/// (`RaceReport` reads an access made in it as the main queue's), wherever
/// Dispatch runs the main queue: on Linux, any of its threads.
__attribute__((noinline)) static void seam_main_queue_work(work *item) {
    unseen_frame_enter();
    invoke_work(item);
    unseen_frame_exit();
}

/// Before counted work off the main queue starts: a device's Dispatch starts
/// a thread for each blocking block, up to its limit, and past it the block
/// waits, parked, until one is free. Which block has a thread is decided by
/// the order of submission alone (an earlier block that has not reached here
/// yet counts as holding one), so no scheduling of this machine's threads can
/// change which blocks hold one whenever the app is idle.
static void take_thread(work *item) {
    lock_seam();
    if (item->run == atomic_load_explicit(&current_run, memory_order_relaxed) && !holds_thread_locked(item)) {
        item->waits_for_thread = 1;
        park_locked(item, 1);
        while (item->waits_for_thread) pthread_cond_wait(&thread_given, &lock);
    }
    unlock_seam();
}

static void run_work(void *context) {
    work *item = context;
    if (!item->on_main_queue) take_thread(item);
    const work *saved = current;
    current = item;
    if (item->on_main_queue) {
        item->started_ns = monotonic_ns();
        seam_main_queue_work(item);
    } else {
        invoke_work(item);
    }
    current = saved;
    finished(item);
}

static work *counted_block(dispatch_queue_t *queue, dispatch_block_t block) {
    work *item = counted_work(queue);
    if (item) item->block = _Block_copy(block);
    return item;
}

static work *counted_function(dispatch_queue_t *queue, void *context, dispatch_function_t function) {
    work *item = counted_work(queue);
    if (item) {
        item->function = function;
        item->context = context;
    }
    return item;
}

// MARK: the seam: Dispatch's entry points

void dispatch_async(dispatch_queue_t queue, dispatch_block_t block) {
    work *item = counted_block(&queue, block);
    if (item) real_dispatch_async_f()(queue, item, run_work); else real_dispatch_async()(queue, block);
}

void dispatch_async_f(dispatch_queue_t queue, void *context, dispatch_function_t function) {
    work *item = counted_function(&queue, context, function);
    if (item) real_dispatch_async_f()(queue, item, run_work); else real_dispatch_async_f()(queue, context, function);
}

void dispatch_barrier_async(dispatch_queue_t queue, dispatch_block_t block) {
    work *item = counted_block(&queue, block);
    if (item) real_dispatch_barrier_async_f()(queue, item, run_work); else real_dispatch_barrier_async()(queue, block);
}

void dispatch_barrier_async_f(dispatch_queue_t queue, void *context, dispatch_function_t function) {
    work *item = counted_function(&queue, context, function);
    if (item) real_dispatch_barrier_async_f()(queue, item, run_work);
    else real_dispatch_barrier_async_f()(queue, context, function);
}

void dispatch_group_async(dispatch_group_t group, dispatch_queue_t queue, dispatch_block_t block) {
    work *item = counted_block(&queue, block);
    if (item) real_dispatch_group_async_f()(group, queue, item, run_work);
    else real_dispatch_group_async()(group, queue, block);
}

void dispatch_group_async_f(dispatch_group_t group, dispatch_queue_t queue, void *context, dispatch_function_t function) {
    work *item = counted_function(&queue, context, function);
    if (item) real_dispatch_group_async_f()(group, queue, item, run_work);
    else real_dispatch_group_async_f()(group, queue, context, function);
}

/// Counted work that waits for the main queue keeps the harness from waiting
/// on it: the harness gives the main queue a turn instead.
static int waits_for_main_queue(dispatch_queue_t queue, int waiting) {
    if (queue != main_q() || !submitter_counts() || current == &run_marker) return 0;
    lock_seam();
    if (waiting) counts.waiting_for_main_queue += 1; else counts.waiting_for_main_queue -= 1;
    note_change_locked();
    unlock_seam();
    return 1;
}

void dispatch_sync(dispatch_queue_t queue, dispatch_block_t block) {
    int waiting = waits_for_main_queue(queue, 1);
    real_dispatch_sync()(queue, block);
    if (waiting) waits_for_main_queue(queue, 0);
}

void dispatch_sync_f(dispatch_queue_t queue, void *context, dispatch_function_t function) {
    int waiting = waits_for_main_queue(queue, 1);
    real_dispatch_sync_f()(queue, context, function);
    if (waiting) waits_for_main_queue(queue, 0);
}

/// Counted work off the main queue that waits for good parks until the
/// harness grants it the semaphore; any other wait is libdispatch's own.
long dispatch_semaphore_wait(dispatch_semaphore_t semaphore, dispatch_time_t timeout) {
    work *item = (work *)(submitter_counts() && current != &run_marker ? current : NULL);
    if (!item || item->on_main_queue || timeout != DISPATCH_TIME_FOREVER) {
        return real_dispatch_semaphore_wait()(semaphore, timeout);
    }
    semaphore_waiter waiter = {.semaphore = semaphore, .item = item, .serial = item->serial};
    lock_seam();
    if (item->run != atomic_load_explicit(&current_run, memory_order_relaxed)) {
        // The run ended meanwhile: no one would hand this semaphore out.
        unlock_seam();
        return real_dispatch_semaphore_wait()(semaphore, timeout);
    }
    pthread_cond_init(&waiter.wake, NULL);
    semaphore_waiter **link = &semaphore_waiters;
    while (*link && (*link)->serial <= waiter.serial) link = &(*link)->next;
    waiter.next = *link;
    *link = &waiter;
    park_locked(item, 1);
    while (!waiter.granted && !waiter.abandoned) pthread_cond_wait(&waiter.wake, &lock);
    unlock_seam();
    pthread_cond_destroy(&waiter.wake);
    if (waiter.granted) unseen_take_over(semaphore);
    return waiter.granted ? 0 : real_dispatch_semaphore_wait()(semaphore, timeout);
}

static void remove_waiter_locked(semaphore_waiter *waiter) {
    for (semaphore_waiter **link = &semaphore_waiters; *link; link = &(*link)->next) {
        if (*link == waiter) {
            *link = waiter->next;
            return;
        }
    }
}

/// Lets every waiter whose semaphore can be taken now take it, earliest work first.
static size_t grant_semaphores_locked(int abandon) {
    size_t granted = 0;
    semaphore_waiter *waiter = semaphore_waiters;
    while (waiter) {
        semaphore_waiter *next = waiter->next;
        if (abandon) {
            waiter->abandoned = 1;
        } else if (real_dispatch_semaphore_wait()(waiter->semaphore, DISPATCH_TIME_NOW) == 0) {
            waiter->granted = 1;
            granted += 1;
        }
        // Busy again from this moment, not from when its thread wakes.
        if ((waiter->granted || waiter->abandoned) && waiter->item->run == atomic_load_explicit(&current_run, memory_order_relaxed)) {
            park_locked(waiter->item, 0);
        }
        if (waiter->granted || waiter->abandoned) {
            remove_waiter_locked(waiter);
            pthread_cond_signal(&waiter->wake);
        }
        waiter = next;
    }
    if (granted || abandon) note_change_locked();
    return granted;
}

// MARK: the harness's side

size_t seam_grant_semaphores(void) {
    lock_seam();
    size_t granted = grant_semaphores_locked(0);
    unlock_seam();
    return granted;
}

size_t seam_semaphore_waiters(void) {
    size_t total = 0;
    lock_seam();
    for (semaphore_waiter *waiter = semaphore_waiters; waiter; waiter = waiter->next) total += 1;
    unlock_seam();
    return total;
}

int seam_is_installed(void) {
    return dlsym(RTLD_DEFAULT, "dispatch_async_f") == (void *)dispatch_async_f;
}

size_t seam_thread_waiters(void) {
    size_t total = 0;
    lock_seam();
    for (work *item = pool.first; item; item = item->next) total += item->waits_for_thread;
    unlock_seam();
    return total;
}

/// Lets the ended run's work that waits for a thread go, and forgets the run's pool.
static void end_pool_locked(void) {
    give_threads_locked(1);
    pool.first = pool.last = NULL;
}

uint64_t seam_begin_run(void) {
    lock_seam();
    grant_semaphores_locked(1);
    end_pool_locked();
    runs += 1;
    uint64_t run = runs;
    atomic_store(&current_run, run);
    counts = (seam_counts){0};
    atomic_store(&main_queue_files, 0);
    atomic_store(&main_queue_file_stall_ns, 0);
    serials = 0;
    note_change_locked();
    unlock_seam();
    return run;
}

void seam_end_run(uint64_t run) {
    lock_seam();
    if (atomic_load(&current_run) == run) {
        // Waiters left when the run ends wait as they would without the seam.
        grant_semaphores_locked(1);
        end_pool_locked();
        atomic_store(&current_run, 0);
        note_change_locked();
    }
    unlock_seam();
}

const void *seam_enter_run(void) {
    const work *saved = current;
    run_marker.run = atomic_load_explicit(&current_run, memory_order_relaxed);
    run_marker.started_ns = monotonic_ns();
    current = &run_marker;
    return saved;
}

const void *seam_leave_run(void) {
    const work *saved = current;
    current = &harness_marker;
    return saved;
}

void seam_restore(const void *saved) { current = saved; }

seam_counts seam_count(void) {
    lock_seam();
    seam_counts now = counts;
    unlock_seam();
    return now;
}

static const work *current_counted(void) {
    return submitter_counts() && current != &run_marker ? current : NULL;
}

uint64_t seam_current_serial(void) {
    const work *item = current_counted();
    return item ? item->serial : 0;
}

int seam_runs_main_queue_work(void) {
    if (current == &run_marker) return 1;
    const work *item = current_counted();
    return item ? item->on_main_queue : -1;
}

int seam_park(int parked) {
    work *item = (work *)current_counted();
    if (!item) return 0;
    lock_seam();
    if (item->run == atomic_load_explicit(&current_run, memory_order_relaxed)) park_locked(item, parked);
    unlock_seam();
    return 1;
}

uint64_t seam_generation(void) {
    lock_seam();
    uint64_t now = generation;
    unlock_seam();
    return now;
}

void seam_note_change(void) {
    lock_seam();
    note_change_locked();
    unlock_seam();
}

void seam_wait_for_change(uint64_t since, int64_t timeout_ns) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ns / 1000000000;
    deadline.tv_nsec += timeout_ns % 1000000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000;
    }
    lock_seam();
    while (generation == since && pthread_cond_timedwait(&changed, &lock, &deadline) != ETIMEDOUT) {}
    unlock_seam();
}

// MARK: files written on the main queue

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

typedef int (*rename_t)(const char *, const char *);
REAL(rename_t, rename)

/// The folder whose files count (the run's caches folder), as a path without a trailing slash.
static char watched_folder[4096];
static _Atomic size_t watched_folder_length;

void seam_watch_writes_in(const char *folder) {
    atomic_store(&watched_folder_length, 0);
    size_t length = strlen(folder);
    while (length > 1 && folder[length - 1] == '/') length -= 1;
    if (length >= sizeof watched_folder) return;
    memcpy(watched_folder, folder, length);
    atomic_store(&watched_folder_length, length);
}

static int in_watched_folder(const char *path) {
    size_t length = atomic_load(&watched_folder_length);
    return length > 0 && strncmp(path, watched_folder, length) == 0 && path[length] == '/';
}

// `Data.write(to:options: .atomic)` writes a temporary file and renames it into
// place: a rename into the watched folder from the run's main-queue work is a
// file written there, and the time that work had run by then is how long the
// main queue waited for it.
int rename(const char *from, const char *to) {
    int result = real_rename()(from, to);
    if (broken(break_rename)) return result;
    atomic_fetch_add_explicit(&renames_seen, 1, memory_order_relaxed);
    if (result == 0 && in_watched_folder(to) && seam_runs_main_queue_work() == 1
        && current->run == atomic_load_explicit(&current_run, memory_order_relaxed)) {
        uint64_t ran = monotonic_ns() - current->started_ns;
        atomic_fetch_add(&main_queue_files, 1);
        uint64_t longest = atomic_load(&main_queue_file_stall_ns);
        while (ran > longest && !atomic_compare_exchange_weak(&main_queue_file_stall_ns, &longest, ran)) {}
    }
    return result;
}

seam_main_queue_writes seam_main_queue_file_writes(void) {
    return (seam_main_queue_writes){atomic_load(&main_queue_files), atomic_load(&main_queue_file_stall_ns)};
}

// MARK: what the probes see (docs/toolchain-contract.md)

static dispatch_queue_t main_q(void) { return broken(break_main_queue) ? NULL : &_dispatch_main_q; }

uint64_t seam_submissions_seen(void) { return atomic_load(&submissions_seen); }
uint64_t seam_main_queue_submissions_seen(void) { return atomic_load(&main_queue_submissions_seen); }
uint64_t seam_renames_seen(void) { return atomic_load(&renames_seen); }

extern const char *dispatch_queue_get_label(dispatch_queue_t);

const char *seam_overcommitting_label(void) {
    return dispatch_queue_get_label(overcommitting(dispatch_get_global_queue(0x15, 0)));
}

void seam_call_block(const void *block) {
    void *copy = _Block_copy(block);
    invoke_block(copy);
    _Block_release(copy);
}
