#ifndef CONTROLLERFSM_EXECUTOR_HOOK_H
#define CONTROLLERFSM_EXECUTOR_HOOK_H

#include <stdbool.h>

// Swift's global executor, handed to the daemon: every job Swift's concurrency runtime would put
// on libdispatch's thread pool goes to `sink` instead (the daemon's event loops), so that pool
// and the manager thread that wakes every second while it exists never start.
//
// Why in C: the runtime's hook is the variable `swift_task_enqueueGlobal_hook`. In a build
// linked against the shared Swift runtime it is exported, and swift-nio finds it with dlsym; in
// the shipped build (the Swift runtime linked statically) it is a local symbol of the program,
// which dlsym cannot see. A reference from C object code linked into the same program resolves
// to it in both builds.

// What receives each job: an opaque pointer to the runtime's job, to be run once, on any
// thread, by the executor the sink hands it to.
typedef void (*cexh_job_sink)(void *job);

// Installs the hook with `sink` as its destination, if no hook is installed yet (compare and
// exchange with nothing). True when this call installed it; false when another hook was there,
// and then nothing changed. Call once, before the process's first task.
bool cexh_install(cexh_job_sink sink);

// True when this program's hook is the runtime's hook now.
bool cexh_is_installed(void);

#endif
