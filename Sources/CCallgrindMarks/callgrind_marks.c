#include "callgrind_marks.h"

// Debian's `valgrind` package installs the client-request header. Without it the package must
// still build (a machine that never profiles need not install valgrind): the marks become
// no-ops and say so.
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CCGM_HAVE_VALGRIND 1
#endif
#endif

#ifdef CCGM_HAVE_VALGRIND
void ccgm_toggle_collect(void) { CALLGRIND_TOGGLE_COLLECT; }
int ccgm_running_on_valgrind(void) { return (int)RUNNING_ON_VALGRIND; }
int ccgm_marks_compiled(void) { return 1; }
#else
void ccgm_toggle_collect(void) {}
int ccgm_running_on_valgrind(void) { return 0; }
int ccgm_marks_compiled(void) { return 0; }
#endif
