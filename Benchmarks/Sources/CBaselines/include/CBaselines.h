// The C `switch` baselines: each machine written the way a C programmer would, a switch on the
// state and, inside, a switch on the event. They are the practical lower bound the benchmarks
// compare ControllerFSM with, and they do the same work: the same counters, guards, outputs and
// (for the turnstile) timer bookkeeping.
#ifndef CBASELINES_H
#define CBASELINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// States and events are numbered as in the Swift enums (TurnstileState, TurnstileEvent).
enum { CT_LOCKED, CT_UNLOCKED, CT_BROKEN, CT_OUT_OF_ORDER, CT_EMERGENCY };
enum { CT_COIN, CT_PUSH, CT_FAULT, CT_REPAIR, CT_TIMEOUT, CT_EMERGENCY_ON, CT_EMERGENCY_OFF };

/// The turnstile (docs/turnstile.md): state, counters, credit, outputs and its one timer.
typedef struct {
    uint8_t state;
    uint8_t state_before_emergency;
    int64_t credit;
    int64_t coins, passages, forced_pushes, expired_credits, faults, coins_out_of_service, repairs,
        free_passages, ignored;
    bool lock, alarm, ready, inhibit, alarm_pulse_requested;
    bool timer_armed;
    int64_t timer_deadline;
    /// The time events are stamped with, in nanoseconds.
    int64_t now;
    int64_t relock_timeout, repair_period;
} cturnstile;

/// Enters `locked`, as the machine's start does.
void cturnstile_init(cturnstile *machine);
/// Dispatches `count` events (TurnstileEvent raw values), in order.
void cturnstile_run(cturnstile *machine, const uint8_t *events, size_t count);

/// The turnstile with superstates in QP/C's QHsm style (turnstile_qhsm.c): the flat turnstile's
/// data (its `state` the innermost state's TurnstileState number), the state a handler function.
typedef struct cqturnstile cqturnstile;
typedef uint8_t (*qhandler)(cqturnstile *me, uint8_t signal);
struct cqturnstile {
    /// The innermost active state's handler.
    qhandler state;
    /// What a handler returns besides its status: its superstate, or a transition's target.
    qhandler temp;
    cturnstile data;
};

/// Enters `operating`, then `inService`, then `locked`, as the machine's start does.
void cqturnstile_init(cqturnstile *machine);
void cqturnstile_run(cqturnstile *machine, const uint8_t *events, size_t count);

/// The generated 50 x 50 machine (scripts/generate-complex.py).
typedef struct {
    uint8_t state;
    int64_t counter;
    int64_t ignored;
} ccomplex;

void ccomplex_init(ccomplex *machine);
void ccomplex_run(ccomplex *machine, const uint8_t *events, size_t count);

#endif
