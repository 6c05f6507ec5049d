/* The SMPI build's emulated device (fupermod/smpi/exec_emu.c; docs/simulate.md): the executor of a
 * line with emulate=FILE or emulate=platform. Private to libfupermod, not installed. */
#ifndef FUPERMOD_SMPI_EXEC_EMU_H
#define FUPERMOD_SMPI_EXEC_EMU_H

#include "fupermod/exec_impl.h"

/* Its operations: no GEMM or FFT is computed; each takes simulated time instead. */
extern const fupermod_exec_ops fupermod_exec_emu_ops;

/* The default of emulate_unit: the flops of one unit of d in an emulated device's point file. */
#define FUPERMOD_EXEC_EMU_UNIT 1e6

#endif
