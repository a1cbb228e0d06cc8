#ifndef DISPATCH_SEAM_H
#define DISPATCH_SEAM_H

// The harness's seam into Dispatch: every block an app hands to Dispatch goes
// through here, so the story clock can tell how much of the app's work is
// still to run without knowing where the app keeps its queues
// (docs/architecture.md, "The story clock").
//
// Only the work of the run in progress is counted: what the run's own turns
// submit (`seam_enter_run`), what counted work submits in turn, and what
// anyone but the harness hands the main queue meanwhile. Queues, blocks and
// threads of anything else in the process pass through untouched.

#include <stddef.h>
#include <stdint.h>

/// Starts counting a new run: counts start from zero, and work of earlier runs
/// that is still queued or running no longer counts. Returns the run's number.
uint64_t seam_begin_run(void);
/// Stops counting, if `run` is still the run counted: a clock shut down late,
/// once another run has begun, leaves that run counted.
void seam_end_run(uint64_t run);
/// Whether the seam is in place (this program's own `dispatch_async` is the seam's).
int seam_is_installed(void);

/// The calling thread now works for the run (the harness's turn on the main
/// queue): what it submits is counted. Returns what to hand `seam_restore`.
const void *seam_enter_run(void);
/// The calling thread works for the harness: what it submits is not counted
/// (its own next turn), and its semaphore waits are its own.
const void *seam_leave_run(void);
void seam_restore(const void *saved);
/// Whether the calling thread runs the run's work now (what it submits is counted).
int seam_runs_the_runs_work(void);

/// The counted work now: queued or running, and of it, waiting in the story
/// (parked). On the main queue and elsewhere.
typedef struct {
    size_t main_queue;
    size_t main_queue_parked;
    size_t elsewhere;
    size_t elsewhere_parked;
    /// Threads of counted work waiting for the main queue (`dispatch_sync` to it).
    size_t waiting_for_main_queue;
    /// Of the work elsewhere, what the run's own turns submitted, directly or
    /// through work they submitted (not what anyone handed the main queue),
    /// and of that, what waits in the story.
    size_t turns_elsewhere;
    size_t turns_elsewhere_parked;
} seam_counts;
seam_counts seam_count(void);

/// What the calling thread runs: the serial number of its counted block (0: none).
uint64_t seam_current_serial(void);
/// Whether the calling thread runs the main queue's counted work or the run's
/// own turn (1), other counted work (0), or nothing the seam counts (-1).
int seam_runs_main_queue_work(void);

/// The calling thread's counted block waits in the story (the network) until
/// `seam_park(0)`. Returns whether the thread runs counted work.
int seam_park(int parked);

/// Counted work off the main queue that waits on a semaphore for good waits
/// in the story until the harness, at an idle moment, lets each waiter whose
/// semaphore can be taken take it, in the order the work was submitted.
/// Returns how many it let go.
size_t seam_grant_semaphores(void);
/// How many counted work items wait on a semaphore now.
size_t seam_semaphore_waiters(void);

/// The threads a device's Dispatch gives blocking work at most: the kernel's
/// limit on threads for the global queues' work (`kern.wq_max_constrained_threads`,
/// docs/architecture.md, "Threads"). The run's counted work off the main queue
/// starts at once up to that many at a time, earliest submitted first; the
/// rest waits in the story, parked, until one of them finishes.
enum { seam_device_threads = 64 };
/// How many counted work items wait for a thread now.
size_t seam_thread_waiters(void);

/// A number that changes whenever counted work is submitted, finishes, parks
/// or unparks, or `seam_note_change` is called.
uint64_t seam_generation(void);
void seam_note_change(void);
/// Waits until the generation is no longer `since`, or `timeout_ns` pass.
void seam_wait_for_change(uint64_t since, int64_t timeout_ns);

/// From now on, files written into `folder` (a path) count in `seam_main_queue_file_writes`.
void seam_watch_writes_in(const char *folder);
/// Files the run's main-queue work (its blocks there, and the run's own turns)
/// put in place in the watched folder with `rename`, as
/// `Data.write(to:options: .atomic)` ends, and
/// the longest wall time, in ns, such work had run when its file was in place:
/// the main queue stalled at least that long.
typedef struct {
    size_t files;
    uint64_t longest_stall_ns;
} seam_main_queue_writes;
seam_main_queue_writes seam_main_queue_file_writes(void);

/// What the toolchain contract's probes see (docs/toolchain-contract.md,
/// `ToolchainContract` in LessonKit): every submission the seam was handed
/// (this program's `dispatch_async` and relatives), those for the main queue
/// (`_dispatch_main_q`), and every `rename` this program made.
uint64_t seam_submissions_seen(void);
uint64_t seam_main_queue_submissions_seen(void);
uint64_t seam_renames_seen(void);
/// The label of the queue the run's blocks for the default global queue go
/// to: libdispatch's overcommitting twin, "….overcommit".
const char *seam_overcommitting_label(void);
/// Copies `block` and calls it as the seam calls the app's blocks (its
/// hand-declared Blocks ABI).
void seam_call_block(const void *block);
/// Whether `OPERATION_LESSONS_BREAK` names `fact`: the seams then act as if
/// the toolchain no longer had it (for the contract's tests only).
int seam_breaks(const char *fact);
/// The environment variable that numbers an app's launches (1, 2, …): each
/// relaunch is a new process, and launch k > 1 gets a hash seed of its own (LaunchSeed.c).
#define SEAM_LAUNCH_VARIABLE "OPERATIONLESSONS_LAUNCH"
/// Whether this runtime exports the hashing parameters a launch's seed is written into.
int seam_launch_seed_is_available(void);
/// This process's launch of the app: 1 unless a relaunch started it.
int seam_launch_number(void);
/// The hashing parameters as this process reads them (0: not exported, or broken on purpose).
int seam_launch_seed_read(uint64_t *seed0, int *deterministic);
/// The seed0 a deterministic launch `launch` gets (launch 1: the runtime's own, 0).
uint64_t seam_launch_seed_expected(int launch);

#endif
