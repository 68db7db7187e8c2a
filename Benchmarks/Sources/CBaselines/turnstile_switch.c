// The turnstile as a hand-written C `switch`, row for row the table of docs/turnstile.md, with the same entry
// and exit work as TurnstileMachine: outputs, the state timer, the state an emergency interrupted.
#include "CBaselines.h"
#include "turnstile_work.h"

// Entry work, one function per state.
static inline void enter_locked(cturnstile *m) {
    m->state = CT_LOCKED;
    set_outputs(m, true, true, false);
}

static inline void enter_unlocked(cturnstile *m) {
    m->state = CT_UNLOCKED;
    set_outputs(m, false, true, false);
    start_timer(m, m->relock_timeout);
}

static inline void enter_broken(cturnstile *m) {
    m->state = CT_BROKEN;
    set_outputs(m, true, false, true);
    m->alarm = true;
}

static inline void enter_out_of_order(cturnstile *m) {
    m->state = CT_OUT_OF_ORDER;
    set_outputs(m, true, false, true);
    start_timer(m, m->repair_period);
}

static inline void enter_emergency(cturnstile *m, uint8_t interrupted) {
    expire_credit(m);
    m->state_before_emergency = interrupted;
    m->state = CT_EMERGENCY;
    set_outputs(m, false, false, true);
}

static inline void dispatch(cturnstile *m, uint8_t event) {
    switch (m->state) {
    case CT_LOCKED:
        switch (event) {
        case CT_COIN: m->coins += 1; m->credit = 1; enter_unlocked(m); return;
        case CT_PUSH: m->forced_pushes += 1; m->alarm_pulse_requested = true; return;
        case CT_FAULT: m->faults += 1; expire_credit(m); enter_broken(m); return;
        case CT_REPAIR: m->repairs += 1; expire_credit(m); enter_out_of_order(m); return;
        case CT_EMERGENCY_ON: enter_emergency(m, CT_LOCKED); return;
        }
        break;
    case CT_UNLOCKED:
        switch (event) {
        case CT_COIN:
            m->coins += 1;
            m->credit += 1;
            start_timer(m, m->relock_timeout);
            return;
        case CT_PUSH:
            if (m->credit > 1) {
                m->passages += 1;
                m->credit -= 1;
                start_timer(m, m->relock_timeout);
                return;
            }
            if (m->credit == 1) {
                m->timer_armed = false;
                m->passages += 1;
                m->credit = 0;
                enter_locked(m);
                return;
            }
            break;
        case CT_TIMEOUT: m->timer_armed = false; expire_credit(m); enter_locked(m); return;
        case CT_FAULT: m->timer_armed = false; m->faults += 1; expire_credit(m); enter_broken(m); return;
        case CT_REPAIR: m->timer_armed = false; m->repairs += 1; expire_credit(m); enter_out_of_order(m); return;
        case CT_EMERGENCY_ON: m->timer_armed = false; enter_emergency(m, CT_UNLOCKED); return;
        }
        break;
    case CT_BROKEN:
        switch (event) {
        case CT_COIN: coin_out_of_service(m); return;
        case CT_REPAIR: m->alarm = false; m->repairs += 1; expire_credit(m); enter_out_of_order(m); return;
        case CT_EMERGENCY_ON: m->alarm = false; enter_emergency(m, CT_BROKEN); return;
        }
        break;
    case CT_OUT_OF_ORDER:
        switch (event) {
        case CT_COIN: coin_out_of_service(m); return;
        case CT_TIMEOUT: m->timer_armed = false; enter_locked(m); return;
        case CT_EMERGENCY_ON: m->timer_armed = false; enter_emergency(m, CT_OUT_OF_ORDER); return;
        }
        break;
    case CT_EMERGENCY:
        switch (event) {
        case CT_PUSH: m->free_passages += 1; return;
        case CT_COIN: coin_out_of_service(m); return;
        case CT_EMERGENCY_OFF:
            if (m->state_before_emergency == CT_LOCKED || m->state_before_emergency == CT_UNLOCKED) {
                enter_locked(m);
            } else {
                enter_broken(m);
            }
            return;
        }
        break;
    }
    m->ignored += 1;
}

void cturnstile_init(cturnstile *m) {
    *m = turnstile_fresh();
    enter_locked(m);
}

void cturnstile_run(cturnstile *m, const uint8_t *events, size_t count) {
    for (size_t i = 0; i < count; i++) {
        // A due timer expires before the next event, as in the runtime. Events are all stamped
        // with the same time in the benchmark, so this never fires there: timer expiries are
        // `timeout` events in the stream.
        if (m->timer_armed && m->timer_deadline <= m->now) {
            m->timer_armed = false;
            dispatch(m, CT_TIMEOUT);
        }
        dispatch(m, events[i]);
    }
}
