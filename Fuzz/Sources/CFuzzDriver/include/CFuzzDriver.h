// libFuzzer's driver, called from each target's entry point: SwiftPM names an executable's
// entry `<Module>_main` (and points `main` at it), so libFuzzer's own `main` is not the one run.
#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
