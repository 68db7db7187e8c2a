// The turnstile's work that both C baselines do alike (turnstile_switch.c, turnstile_qhsm.c):
// outputs, the state timer, credit and coins out of service, on the flat turnstile's data.
#ifndef TURNSTILE_WORK_H
#define TURNSTILE_WORK_H

#include "CBaselines.h"

static inline void set_outputs(cturnstile *m, bool lock, bool ready, bool inhibit) {
    m->lock = lock;
    m->ready = ready;
    m->inhibit = inhibit;
}

static inline void start_timer(cturnstile *m, int64_t delay) {
    m->timer_armed = true;
    m->timer_deadline = m->now + delay;
}

static inline void expire_credit(cturnstile *m) {
    m->expired_credits += m->credit;
    m->credit = 0;
}

static inline void coin_out_of_service(cturnstile *m) {
    m->coins += 1;
    m->coins_out_of_service += 1;
}

/// The data of a fresh turnstile (its timings, the lock held), before its initial state's entry.
static inline cturnstile turnstile_fresh(void) {
    return (cturnstile){
        .state = CT_LOCKED,
        .state_before_emergency = CT_LOCKED,
        .lock = true,
        .relock_timeout = 5000000000LL,
        .repair_period = 5000000000LL,
    };
}

#endif
