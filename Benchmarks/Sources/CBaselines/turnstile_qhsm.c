// The turnstile with superstates, written the way QP/C's QHsm writes a hierarchical machine: one
// handler function per state, called with the event's signal; it returns HANDLED, TRAN (target
// in `temp`, its action already run) or SUPER (its superstate in `temp`) for what it does not
// answer. Entry, exit and initial transitions are signals of their own. Dispatch calls the
// innermost state's handler, then its superstates', until one answers; a transition exits up
// to the least common ancestor and enters down to the target, then follows initial transitions.
// The same work as turnstile_switch.c (and the nested ControllerFSM machine): three levels,
//
//   operating                      emergencyOn -> emergency
//     inService (initial locked)   fault -> broken, repair -> outOfOrder
//       locked, unlocked
//     outOfService                 coin taken out of service
//       broken, outOfOrder
//   emergency
#include "CBaselines.h"
#include "turnstile_work.h"

enum { Q_HANDLED, Q_IGNORED, Q_SUPER, Q_TRAN };
// Signals the machine sends its handlers itself, after the events' own.
enum { SIG_ENTRY = 100, SIG_EXIT, SIG_INIT, SIG_EMPTY };
// QP/C's QHSM_MAX_NEST_DEPTH_ is 6; three levels need three.
#define Q_MAX_DEPTH 6

#define SUPER(parent) (me->temp = (qhandler)(parent), Q_SUPER)
#define TRAN(target) (me->temp = (qhandler)(target), Q_TRAN)

static uint8_t q_top(cqturnstile *me, uint8_t sig) { (void)me; (void)sig; return Q_IGNORED; }

static uint8_t q_operating(cqturnstile *me, uint8_t sig);
static uint8_t q_in_service(cqturnstile *me, uint8_t sig);
static uint8_t q_locked(cqturnstile *me, uint8_t sig);
static uint8_t q_unlocked(cqturnstile *me, uint8_t sig);
static uint8_t q_out_of_service(cqturnstile *me, uint8_t sig);
static uint8_t q_broken(cqturnstile *me, uint8_t sig);
static uint8_t q_out_of_order(cqturnstile *me, uint8_t sig);
static uint8_t q_emergency(cqturnstile *me, uint8_t sig);

/// The flat state number (TurnstileState) of an innermost state's handler.
static uint8_t leaf_number(qhandler state) {
    if (state == q_locked) return CT_LOCKED;
    if (state == q_unlocked) return CT_UNLOCKED;
    if (state == q_broken) return CT_BROKEN;
    if (state == q_out_of_order) return CT_OUT_OF_ORDER;
    return CT_EMERGENCY;
}

static uint8_t q_operating(cqturnstile *me, uint8_t sig) {
    switch (sig) {
    case SIG_INIT: return TRAN(q_in_service);
    case CT_EMERGENCY_ON:
        expire_credit(&me->data);
        me->data.state_before_emergency = me->data.state;
        return TRAN(q_emergency);
    }
    return SUPER(q_top);
}

static uint8_t q_in_service(cqturnstile *me, uint8_t sig) {
    switch (sig) {
    case SIG_INIT: return TRAN(q_locked);
    case CT_FAULT: me->data.faults += 1; expire_credit(&me->data); return TRAN(q_broken);
    case CT_REPAIR: me->data.repairs += 1; expire_credit(&me->data); return TRAN(q_out_of_order);
    }
    return SUPER(q_operating);
}

static uint8_t q_locked(cqturnstile *me, uint8_t sig) {
    switch (sig) {
    case SIG_ENTRY: set_outputs(&me->data, true, true, false); return Q_HANDLED;
    case CT_COIN: me->data.coins += 1; me->data.credit = 1; return TRAN(q_unlocked);
    case CT_PUSH: me->data.forced_pushes += 1; me->data.alarm_pulse_requested = true; return Q_HANDLED;
    }
    return SUPER(q_in_service);
}

static uint8_t q_unlocked(cqturnstile *me, uint8_t sig) {
    switch (sig) {
    case SIG_ENTRY: set_outputs(&me->data, false, true, false); start_timer(&me->data, me->data.relock_timeout); return Q_HANDLED;
    case SIG_EXIT: me->data.timer_armed = false; return Q_HANDLED;
    case CT_COIN: me->data.coins += 1; me->data.credit += 1; start_timer(&me->data, me->data.relock_timeout); return Q_HANDLED;
    case CT_PUSH:
        if (me->data.credit > 1) {
            me->data.passages += 1;
            me->data.credit -= 1;
            start_timer(&me->data, me->data.relock_timeout);
            return Q_HANDLED;
        }
        if (me->data.credit == 1) {
            me->data.passages += 1;
            me->data.credit = 0;
            return TRAN(q_locked);
        }
        break;
    case CT_TIMEOUT: expire_credit(&me->data); return TRAN(q_locked);
    }
    return SUPER(q_in_service);
}

static uint8_t q_out_of_service(cqturnstile *me, uint8_t sig) {
    switch (sig) {
    case CT_COIN: coin_out_of_service(&me->data); return Q_HANDLED;
    }
    return SUPER(q_operating);
}

static uint8_t q_broken(cqturnstile *me, uint8_t sig) {
    switch (sig) {
    case SIG_ENTRY: set_outputs(&me->data, true, false, true); me->data.alarm = true; return Q_HANDLED;
    case SIG_EXIT: me->data.alarm = false; return Q_HANDLED;
    case CT_REPAIR: me->data.repairs += 1; expire_credit(&me->data); return TRAN(q_out_of_order);
    }
    return SUPER(q_out_of_service);
}

static uint8_t q_out_of_order(cqturnstile *me, uint8_t sig) {
    switch (sig) {
    case SIG_ENTRY: set_outputs(&me->data, true, false, true); start_timer(&me->data, me->data.repair_period); return Q_HANDLED;
    case SIG_EXIT: me->data.timer_armed = false; return Q_HANDLED;
    case CT_TIMEOUT: return TRAN(q_locked);
    }
    return SUPER(q_out_of_service);
}

static uint8_t q_emergency(cqturnstile *me, uint8_t sig) {
    switch (sig) {
    case SIG_ENTRY: set_outputs(&me->data, false, false, true); return Q_HANDLED;
    case CT_PUSH: me->data.free_passages += 1; return Q_HANDLED;
    case CT_COIN: coin_out_of_service(&me->data); return Q_HANDLED;
    case CT_EMERGENCY_OFF:
        if (me->data.state_before_emergency == CT_LOCKED || me->data.state_before_emergency == CT_UNLOCKED) return TRAN(q_locked);
        return TRAN(q_broken);
    }
    return SUPER(q_top);
}

/// The superstate of `state`, asked as QHsm asks it: the empty signal, answered with SUPER.
static inline qhandler super_of(cqturnstile *me, qhandler state) {
    (void)state(me, SIG_EMPTY);
    return me->temp;
}

/// Enters the states from just below `top` down to `target`, outermost first.
static void enter_down(cqturnstile *me, qhandler top, qhandler target) {
    qhandler path[Q_MAX_DEPTH];
    int count = 0;
    for (qhandler state = target; state != top; state = super_of(me, state)) path[count++] = state;
    while (count > 0) (void)path[--count](me, SIG_ENTRY);
}

/// Follows `state`'s initial transitions down to an innermost state, which becomes the current
/// one (its TurnstileState number kept in the data, as the flat machine keeps its state).
static void drill(cqturnstile *me, qhandler state) {
    qhandler current = state;
    while (current(me, SIG_INIT) == Q_TRAN) {
        qhandler child = me->temp;
        enter_down(me, current, child);
        current = child;
    }
    me->state = current;
    me->data.state = leaf_number(current);
}

/// From `source` (whose handler answered, its action run) to `target`: exits `source` and its
/// superstates up to the nearest one holding `target` strictly inside it, enters down to
/// `target`, then follows initial transitions.
static void transition(cqturnstile *me, qhandler source, qhandler target) {
    qhandler around[Q_MAX_DEPTH];
    int count = 0;
    for (qhandler state = super_of(me, target); state != q_top; state = super_of(me, state)) around[count++] = state;
    qhandler domain = super_of(me, source);
    for (;;) {
        int i = 0;
        while (i < count && around[i] != domain) i++;
        if (domain == q_top || i < count) break;
        domain = super_of(me, domain);
    }
    for (qhandler state = source; state != domain; state = super_of(me, state)) (void)state(me, SIG_EXIT);
    enter_down(me, domain, target);
    drill(me, target);
}

static void dispatch(cqturnstile *me, uint8_t sig) {
    qhandler source = me->state;
    uint8_t result = source(me, sig);
    while (result == Q_SUPER) {
        source = me->temp;
        result = source(me, sig);
    }
    if (result == Q_TRAN) {
        qhandler target = me->temp;
        // Exit from the innermost state up to the state whose handler answered.
        for (qhandler state = me->state; state != source; state = super_of(me, state)) (void)state(me, SIG_EXIT);
        transition(me, source, target);
    } else if (result == Q_IGNORED) {
        me->data.ignored += 1;
    }
}

void cqturnstile_init(cqturnstile *me) {
    *me = (cqturnstile){ .state = q_top, .data = turnstile_fresh() };
    enter_down(me, q_top, q_operating);
    drill(me, q_operating);
}

void cqturnstile_run(cqturnstile *me, const uint8_t *events, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (me->data.timer_armed && me->data.timer_deadline <= me->data.now) {
            me->data.timer_armed = false;
            dispatch(me, CT_TIMEOUT);
        }
        dispatch(me, events[i]);
    }
}

