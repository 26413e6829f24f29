/**
 * \file isochron/clock.h
 * \brief Global clocks: a base timer under a stack of linear clock models.
 *
 * A linear model maps a time t of the clock below it to the reference clock:
 *     ref(t) = t + slope * t + intercept
 * (slope = 0 gives an offset-only model). A global clock is a timer plus a
 * stack of such layers applied bottom-up, which is the nesting of Hunold &
 * Carpen-Amarie (paper 000, sec. IV-B: cm(cm(0,2),4)). Two models merge into one
 * (HCA/HCA2, paper 000 sec. II and [10]); a clock flattens to a byte buffer
 * and is rebuilt on another process over that process's own timer
 * (ClockPropSync, Algorithm 3).
 */
#ifndef ISOCHRON_CLOCK_H
#define ISOCHRON_CLOCK_H

#include <stddef.h>
#include "isochron/timer.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Kind of one model layer. */
typedef enum {
    ISOCHRON_LM_OFFSET = 0, /**< slope fixed at 0 */
    ISOCHRON_LM_LINEAR = 1  /**< slope and intercept */
} isochron_lm_kind_t;

/** A linear clock model: ref = t + slope*t + intercept. */
typedef struct {
    double slope;
    double intercept;
    isochron_lm_kind_t kind;
} isochron_lm_t;

/** The identity model. */
isochron_lm_t isochron_lm_identity(void);
/** \brief Apply a model to a time. */
double isochron_lm_apply(isochron_lm_t m, double t);
/**
 * \brief Merge: if \p outer maps clock B to A and \p inner maps clock C to B,
 *        the result maps C to A. Exact (up to rounding).
 */
isochron_lm_t isochron_lm_merge(isochron_lm_t outer, isochron_lm_t inner);

/** Opaque global clock. It does not own its timer. */
typedef struct isochron_clock isochron_clock_t;

#define ISOCHRON_CLOCK_MAX_LAYERS 8

/** \brief A clock equal to \p timer (no layers). */
int isochron_clock_create(isochron_timer_t *timer, isochron_clock_t **out);
/** \brief A new clock: \p parent with one more layer \p m on top. */
int isochron_clock_nest(const isochron_clock_t *parent, isochron_lm_t m, isochron_clock_t **out);
/**
 * \brief Add layer \p m on top of \p c in place; *index receives its position.
 * Everyone holding \p c sees the new layer (how clock tracking keeps a clock
 * true while the engine and drivers use it).
 */
int isochron_clock_push_layer(isochron_clock_t *c, isochron_lm_t m, int *index);
/** \brief Merge the top layer into the one below it in place (exact up to
 *  rounding; the clock reads the same). Nothing happens at depth < 2. */
void isochron_clock_fold_top(isochron_clock_t *c);
/** \brief Replace layer \p i of \p c in place (0 <= i < depth). */
int isochron_clock_set_layer(isochron_clock_t *c, int i, isochron_lm_t m);
/** \brief Deep copy. */
int isochron_clock_copy(const isochron_clock_t *c, isochron_clock_t **out);
/** \brief Destroy (NULL is fine). */
void isochron_clock_destroy(isochron_clock_t *c);

/** \brief Global time now: the timer read and passed through every layer. */
double isochron_clock_now(isochron_clock_t *c);
/** Wait until c reads t. yield != 0 (ranks outnumber cores): sleep while t is
 *  more than 200 us away, then sched_yield() until it; else spin. A spinning
 *  wait on an oversubscribed node starves the ranks the waiter depends on. */
void isochron_clock_wait_until(isochron_clock_t *c, double t, int yield);
/** \brief Map a reading of the clock's timer to global time. */
double isochron_clock_apply(const isochron_clock_t *c, double timer_t);
/** \brief All layers merged into one model (timer -> global). */
isochron_lm_t isochron_clock_model(const isochron_clock_t *c);
/** \brief Number of layers, and layer i (0 = closest to the timer). */
int isochron_clock_depth(const isochron_clock_t *c);
isochron_lm_t isochron_clock_layer(const isochron_clock_t *c, int i);
/** \brief The timer under the clock. */
isochron_timer_t *isochron_clock_timer(const isochron_clock_t *c);

/**
 * \brief Serialize the layers into \p buf (\p len bytes). \p needed receives
 *        the size required; ISOCHRON_ETRUNC if \p len is smaller.
 * The format is versioned and little-endian-independent within one machine
 * family (doubles are copied as they are; processes of one job share it).
 */
int isochron_clock_flatten(const isochron_clock_t *c, void *buf, size_t len, size_t *needed);
/** \brief Rebuild a clock from a flattened buffer over \p timer. */
int isochron_clock_unflatten(const void *buf, size_t len, isochron_timer_t *timer, isochron_clock_t **out);

#ifdef __cplusplus
}
#endif
#endif
