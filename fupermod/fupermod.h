/* libfupermod: functional performance models and data partitioning. One header for users. */
#ifndef FUPERMOD_H
#define FUPERMOD_H

#include "error.h"
#include "point.h"
#include "model.h"
#include "dist.h"
#include "calib.h"
#include "kernel.h"
#include "option.h"
#include "benchmark.h"
#include "share.h"
#include "conf.h"
#include "exec.h"
#include "dynamic.h"
#include "util.h"
#include "mpi_thread.h"
#include "comm.h"
#include "choose.h"
#include "clock.h"

#endif
