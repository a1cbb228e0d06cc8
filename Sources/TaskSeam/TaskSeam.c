#include "TaskSeam.h"

#include "DispatchSeam.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

// The runtime's own declarations (swift/Runtime/Concurrency.h, not shipped with
// the toolchain): a job is opaque here; both hooks use the Swift calling convention.
typedef struct Job Job;
typedef struct {
    void *identity;
    uintptr_t implementation;
} SerialExecutorRef;
typedef __attribute__((swiftcall)) void (*EnqueueOriginal)(Job *job);
typedef __attribute__((swiftcall)) void (*EnqueueHook)(Job *job, EnqueueOriginal original);
typedef __attribute__((swiftcall)) void (*JobRun)(Job *job, SerialExecutorRef executor);
typedef void (*DispatchAsyncF)(void *queue, void *context, void (*work)(void *));

static JobRun job_run;
static DispatchAsyncF dispatch_async_f_;
static void *main_queue;
static atomic_int watching;
static atomic_long waiting;
static atomic_ulong seen;
static atomic_int found_another_hook;

/// Runs a job on the main queue as the global executor would on a pool thread:
/// with the generic executor, the one a job bound for the pool runs on.
static void run_on_main_queue(void *context) {
    SerialExecutorRef generic = {NULL, 0};
    job_run((Job *)context, generic);
    atomic_fetch_sub(&waiting, 1);
}

static __attribute__((swiftcall)) void enqueue_global(Job *job, EnqueueOriginal original) {
    atomic_fetch_add(&seen, 1);
    // Only the run's own work hands its jobs to the story: in a test process, another test's tasks (which may
    // block their thread) keep the pool.
    if (!atomic_load(&watching) || !seam_runs_the_runs_work()) {
        original(job);
        return;
    }
    atomic_fetch_add(&waiting, 1);
    dispatch_async_f_(main_queue, job, run_on_main_queue);
}

static __attribute__((swiftcall)) void another_hook(Job *job, EnqueueOriginal original) { original(job); }

int task_seam_install(void) {
    EnqueueHook *hook = (EnqueueHook *)dlsym(RTLD_DEFAULT, "swift_task_enqueueGlobal_hook");
    job_run = (JobRun)dlsym(RTLD_DEFAULT, "swift_job_run");
    dispatch_async_f_ = (DispatchAsyncF)dlsym(RTLD_DEFAULT, "dispatch_async_f");
    main_queue = dlsym(RTLD_DEFAULT, "_dispatch_main_q");
    if (hook == NULL || job_run == NULL || dispatch_async_f_ == NULL || main_queue == NULL) return 0;
    // Broken on purpose (docs/toolchain-contract.md): as a runtime that exports the hook but never calls it.
    if (seam_breaks("task-hook")) return 1;
    // Broken on purpose: as a program where something else set the hook first.
    if (seam_breaks("task-hook-alone") && *hook == NULL) *hook = another_hook;
    if (*hook != NULL && *hook != enqueue_global) atomic_store(&found_another_hook, 1);
    if (*hook != enqueue_global) *hook = enqueue_global;
    return 1;
}

void task_seam_set_watching(int on) { atomic_store(&watching, on); }

long task_seam_jobs_waiting(void) { return atomic_load(&waiting); }

unsigned long task_seam_jobs_seen(void) { return atomic_load(&seen); }

int task_seam_replaced_another_hook(void) { return atomic_load(&found_another_hook); }
