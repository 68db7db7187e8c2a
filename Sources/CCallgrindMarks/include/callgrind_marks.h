#ifndef CONTROLLERFSM_CALLGRIND_MARKS_H
#define CONTROLLERFSM_CALLGRIND_MARKS_H

// Callgrind's client requests as functions Swift can call: `edge-path-probe` switches
// callgrind's collection on and off around the part of the event path it measures, so
// `valgrind --tool=callgrind --collect-atstart=no` counts the instructions of that part alone.
// Outside valgrind each is a few no-op instructions (the magic sequence), so the probe also
// runs as a plain program.

// Switches collection on if it is off, off if it is on.
void ccgm_toggle_collect(void);

// Nonzero when the program runs under valgrind.
int ccgm_running_on_valgrind(void);

// Nonzero when valgrind's client-request header was there at build time: without it the marks
// do nothing, and the probe refuses to run under valgrind rather than measure nothing.
int ccgm_marks_compiled(void);

#endif
