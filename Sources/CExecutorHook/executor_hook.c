#include "executor_hook.h"

#include <stddef.h>

// The runtime's declarations (swift/Runtime/Concurrency.h, `SWIFT_CC(swift)`): the hook is
// called with the job and the runtime's own enqueue, in Swift's calling convention.
typedef __attribute__((swiftcall)) void (*cexh_original_enqueue)(void *job);
typedef __attribute__((swiftcall)) void (*cexh_enqueue_hook)(void *job, cexh_original_enqueue original);
extern cexh_enqueue_hook swift_task_enqueueGlobal_hook;

// Written once by cexh_install before the hook that reads it is published (the exchange below
// is sequentially consistent, and a thread that sees the hook sees the sink).
static cexh_job_sink installed_sink;

static __attribute__((swiftcall)) void cexh_enqueue(void *job, cexh_original_enqueue original) {
    cexh_job_sink sink = __atomic_load_n(&installed_sink, __ATOMIC_ACQUIRE);
    if (sink != NULL) {
        sink(job);
    } else {
        original(job);
    }
}

bool cexh_install(cexh_job_sink sink) {
    if (sink == NULL) {
        return false;
    }
    cexh_job_sink no_sink = NULL;
    if (!__atomic_compare_exchange_n(&installed_sink, &no_sink, sink, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        return false;
    }
    cexh_enqueue_hook no_hook = NULL;
    if (!__atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &no_hook, cexh_enqueue, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        // Someone else's hook: ours is not installed, and the sink is never used.
        __atomic_store_n(&installed_sink, NULL, __ATOMIC_SEQ_CST);
        return false;
    }
    return true;
}

bool cexh_is_installed(void) {
    return __atomic_load_n(&swift_task_enqueueGlobal_hook, __ATOMIC_SEQ_CST) == cexh_enqueue;
}
