/**
 * \file isochron/trace.h
 * \brief libisochron-trace.so: tracing an MPI program on the global clock.
 *
 * Specification: Hunold & Carpen-Amarie, paper 000, §V-C (tracing, Fig. 10):
 * timestamps taken on a synchronized global clock let the instances of one
 * collective be lined up across ranks. Used by LD_PRELOAD (or by linking
 * -lisochron-trace before -lmpi) on an unmodified MPI program: its PMPI
 * wrappers (generated from src/trace/mpi_calls.tbl) synchronize the clocks at
 * MPI_Init with isochron_sync_run, keep them tracked (isochron_track_*),
 * record every selected call's entry and exit on this rank's timer in a
 * buffer, and at MPI_Finalize convert them to the global clock (with the
 * clock model valid at each event's time), gather them on rank 0 and write
 * OTF2 and Perfetto Trace Event JSON.
 *
 * Environment (all optional):
 *   ISOCHRON_TRACE_DIR     where the traces go (default: the working directory)
 *   ISOCHRON_TRACE_NAME    base name (default: isochron-trace): NAME.json, NAME/ (OTF2 archive NAME/NAME.otf2)
 *   ISOCHRON_TRACE_FORMATS comma list of json, otf2 (default: json,otf2), or none (record, write nothing: overhead runs)
 *   ISOCHRON_TRACE_SYNC    sync spec (isochron/sync.h) or "none" (no correction: global = local)
 *                          (default: ISOCHRON_TRACE_DEFAULT_SYNC, hierarchical)
 *   ISOCHRON_TRACE_TRACK   on|off: clock tracking during the run (default: on)
 *   ISOCHRON_TRACE_MIN_INTERVAL  seconds between tracker refreshes at least (default 0.1; 0.001..10)
 *   ISOCHRON_TRACE_POLL    poll the tracker every N-th blocking collective on MPI_COMM_WORLD (default 16)
 *   ISOCHRON_TRACE_CALLS   comma list of MPI function names, or "all" (default), or "coll" (blocking collectives)
 *   ISOCHRON_TRACE_TIMER   trace timer (isochron/timer.h names; default: monotonic)
 *   ISOCHRON_TRACE_SKEW    inject skew into the trace timer (isochron_skew_spec_parse syntax)
 *   ISOCHRON_TRACE_MAX_EVENTS  per-rank buffer capacity (default 1000000); calls beyond are counted, not kept
 *   ISOCHRON_TRACE_LIST    if set, rank 0 prints the traced functions and their kinds at MPI_Init
 * Bad values: rank 0 prints the valid choices and the job aborts (exit code 2).
 * Not thread-safe: calls from threads other than the one that called MPI_Init
 * must not be traced concurrently (MPI_THREAD_MULTIPLE programs: limit the set).
 */
#ifndef ISOCHRON_TRACE_H
#define ISOCHRON_TRACE_H

/** Default ISOCHRON_TRACE_SYNC: HCA3 between nodes, then HCA3 within a node. */
#define ISOCHRON_TRACE_DEFAULT_SYNC "hca3+hca3"

/** \brief Pause (0) or resume (1) recording on this rank; returns the previous state.
 *  For a program linked with the tracer that wants to leave out a phase. */
int isochron_trace_set_active(int on);
/** \brief Events recorded on this rank so far (dropped ones not counted). */
long isochron_trace_event_count(void);
#endif
