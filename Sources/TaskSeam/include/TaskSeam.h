#ifndef TASK_SEAM_H
#define TASK_SEAM_H

/// The Swift runtime's seam for jobs bound to the global executor: every new
/// task, child task, actor job and resumed continuation that would run on
/// the shared pool passes through `swift_task_enqueueGlobal_hook`, which the
/// runtime exports. Installed once, it either hands a job on to the pool as
/// usual or, while the story watches and the enqueuing thread runs the run's
/// work (the Dispatch seam's count), runs it on the main queue and counts it
/// from the moment it is enqueued until its run returns.

/// Installs the hook. 0 if the runtime does not export it (or what it needs
/// to run a job); 1 when installed.
int task_seam_install(void);

/// While on, the run's jobs run on the main queue, one at a time, in the order
/// they were enqueued; others, and all while off, on the global executor as
/// the runtime would.
void task_seam_set_watching(int watching);

/// Jobs enqueued while watching whose run has not returned yet.
long task_seam_jobs_waiting(void);

/// Jobs the hook has seen since it was installed, watched or not.
unsigned long task_seam_jobs_seen(void);

/// Whether installing found another hook in place, which it replaced: the
/// seam does not chain to it.
int task_seam_replaced_another_hook(void);

#endif
