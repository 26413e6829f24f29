/*
 * Global clocks as a timer under a stack of linear models (paper 000,
 * sec. III-IV). A layer maps the time of the clock below it to the reference:
 * ref = t + slope*t + intercept. Stacking layers is the nesting of
 * ClockPropSync's cm(cm(0,2),4); merging two layers into one is the model
 * merge of HCA/HCA2. Flattening writes the layers to a small versioned buffer
 * so that a model can be broadcast (Alg. 3) or exported with results; the
 * timer is not part of the buffer: the receiver rebuilds the model over its
 * own timer, which is correct only where both read the same time source.
 * Reading the clock applies the layers merged into one model (kept with the
 * layers, recomputed at any change): one multiply-add per read whatever
 * the depth, so the global clock costs about 1.1x a raw clock_gettime
 * (issue 11's target: 1.2x; bench/timer_cost.sh).
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/clock.h"
#include "core/util.h"

struct isochron_clock {
    isochron_timer_t *timer;
    int depth;
    isochron_lm_t layer[ISOCHRON_CLOCK_MAX_LAYERS];
    isochron_lm_t merged; /* the layers' composition, recomputed at every change of a layer (by the
                           * writer: a reader only reads, as it only read the layers before) */
};

static void merge_layers(isochron_clock_t *c);

isochron_lm_t isochron_lm_identity(void) { isochron_lm_t m = {0.0, 0.0, ISOCHRON_LM_OFFSET}; return m; }

double isochron_lm_apply(isochron_lm_t m, double t) { return t + m.slope * t + m.intercept; }

isochron_lm_t isochron_lm_merge(isochron_lm_t outer, isochron_lm_t inner)
{
    /* outer(inner(t)) = (t(1+si)+ii)(1+so) + io */
    isochron_lm_t m;
    m.slope = outer.slope + inner.slope + outer.slope * inner.slope;
    m.intercept = inner.intercept * (1.0 + outer.slope) + outer.intercept;
    m.kind = (outer.kind == ISOCHRON_LM_LINEAR || inner.kind == ISOCHRON_LM_LINEAR) ? ISOCHRON_LM_LINEAR : ISOCHRON_LM_OFFSET;
    return m;
}

int isochron_clock_create(isochron_timer_t *timer, isochron_clock_t **out)
{
    *out = NULL;
    if (!timer) return isochron_set_error(ISOCHRON_EINVAL, "clock: NULL timer");
    isochron_clock_t *c = calloc(1, sizeof *c);
    if (!c) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory creating clock");
    c->timer = timer;
    merge_layers(c);
    *out = c;
    return ISOCHRON_OK;
}

int isochron_clock_copy(const isochron_clock_t *src, isochron_clock_t **out)
{
    *out = malloc(sizeof **out);
    if (!*out) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory copying clock");
    **out = *src;
    return ISOCHRON_OK;
}

int isochron_clock_nest(const isochron_clock_t *parent, isochron_lm_t m, isochron_clock_t **out)
{
    *out = NULL;
    if (parent->depth >= ISOCHRON_CLOCK_MAX_LAYERS)
        return isochron_set_error(ISOCHRON_EINVAL, "clock: at most %d nested models", ISOCHRON_CLOCK_MAX_LAYERS);
    int rc = isochron_clock_copy(parent, out);
    if (rc) return rc;
    (*out)->layer[(*out)->depth++] = m;
    merge_layers(*out);
    return ISOCHRON_OK;
}

int isochron_clock_push_layer(isochron_clock_t *c, isochron_lm_t m, int *index)
{
    if (c->depth >= ISOCHRON_CLOCK_MAX_LAYERS)
        return isochron_set_error(ISOCHRON_EINVAL, "clock: at most %d nested models", ISOCHRON_CLOCK_MAX_LAYERS);
    if (index) *index = c->depth;
    c->layer[c->depth++] = m;
    merge_layers(c);
    return ISOCHRON_OK;
}

void isochron_clock_fold_top(isochron_clock_t *c)
{
    if (c->depth < 2) return;
    c->layer[c->depth - 2] = isochron_lm_merge(c->layer[c->depth - 1], c->layer[c->depth - 2]);
    c->depth--;
    merge_layers(c);
}

int isochron_clock_set_layer(isochron_clock_t *c, int i, isochron_lm_t m)
{
    if (i < 0 || i >= c->depth) return isochron_set_error(ISOCHRON_EINVAL, "clock: no layer %d (depth %d)", i, c->depth);
    c->layer[i] = m;
    merge_layers(c);
    return ISOCHRON_OK;
}

void isochron_clock_destroy(isochron_clock_t *c) { free(c); }

static void merge_layers(isochron_clock_t *c)
{
    isochron_lm_t m = isochron_lm_identity();
    for (int i = 0; i < c->depth; i++) m = isochron_lm_merge(c->layer[i], m);
    c->merged = m;
}

double isochron_clock_apply(const isochron_clock_t *c, double t)
{
    return t + c->merged.slope * t + c->merged.intercept;
}

double isochron_clock_now(isochron_clock_t *c)
{
    double t = isochron_timer_now(c->timer);
    return t + c->merged.slope * t + c->merged.intercept;
}

static double clock_now_cb(void *c) { return isochron_clock_now(c); }

void isochron_clock_wait_until(isochron_clock_t *c, double t, int yield)
{
#ifdef SMPI_ISOCHRON
    yield = 0; /* sched_yield would loop in host time; isochron_spin_until sleeps in simulated time */
#endif
    double left = t - isochron_clock_now(c);
    if (yield && left > 200e-6) isochron_sleep(left - 150e-6);
    if (yield)
        while (isochron_clock_now(c) < t) sched_yield();
    else
        isochron_spin_until(clock_now_cb, c, t);
}

isochron_lm_t isochron_clock_model(const isochron_clock_t *c) { return c->merged; }

int isochron_clock_depth(const isochron_clock_t *c) { return c->depth; }
isochron_lm_t isochron_clock_layer(const isochron_clock_t *c, int i)
{
    return (i >= 0 && i < c->depth) ? c->layer[i] : isochron_lm_identity();
}
isochron_timer_t *isochron_clock_timer(const isochron_clock_t *c) { return c->timer; }

/* Flat format v1: "ISOC" | u32 version | u32 depth | u32 reserved | depth x { u32 kind | u32 0 | f64 slope | f64 intercept } */
#define FLAT_MAGIC "ISOC"
#define FLAT_VERSION 1u
#define FLAT_HEADER 16
#define FLAT_LAYER 24

int isochron_clock_flatten(const isochron_clock_t *c, void *buf, size_t len, size_t *needed)
{
    size_t need = FLAT_HEADER + (size_t)c->depth * FLAT_LAYER;
    if (needed) *needed = need;
    if (!buf || len < need) return isochron_set_error(ISOCHRON_ETRUNC, "clock flatten: buffer of %zu bytes, %zu needed", len, need);
    unsigned char *p = buf;
    uint32_t hdr[3] = {FLAT_VERSION, (uint32_t)c->depth, 0};
    memcpy(p, FLAT_MAGIC, 4);
    memcpy(p + 4, hdr, sizeof hdr);
    p += FLAT_HEADER;
    for (int i = 0; i < c->depth; i++, p += FLAT_LAYER) {
        uint32_t k[2] = {(uint32_t)c->layer[i].kind, 0};
        memcpy(p, k, 8);
        memcpy(p + 8, &c->layer[i].slope, 8);
        memcpy(p + 16, &c->layer[i].intercept, 8);
    }
    return ISOCHRON_OK;
}

int isochron_clock_unflatten(const void *buf, size_t len, isochron_timer_t *timer, isochron_clock_t **out)
{
    *out = NULL;
    const unsigned char *p = buf;
    if (!buf || len < FLAT_HEADER) return isochron_set_error(ISOCHRON_ETRUNC, "clock unflatten: %zu bytes is shorter than the header", len);
    if (memcmp(p, FLAT_MAGIC, 4)) return isochron_set_error(ISOCHRON_EPARSE, "clock unflatten: bad magic (not a flattened isochron clock)");
    uint32_t hdr[3];
    memcpy(hdr, p + 4, sizeof hdr);
    if (hdr[0] != FLAT_VERSION) return isochron_set_error(ISOCHRON_EPARSE, "clock unflatten: format version %u, this library reads %u", hdr[0], FLAT_VERSION);
    if (hdr[1] > ISOCHRON_CLOCK_MAX_LAYERS) return isochron_set_error(ISOCHRON_EPARSE, "clock unflatten: %u layers (max %d)", hdr[1], ISOCHRON_CLOCK_MAX_LAYERS);
    size_t need = FLAT_HEADER + (size_t)hdr[1] * FLAT_LAYER;
    if (len < need) return isochron_set_error(ISOCHRON_ETRUNC, "clock unflatten: %zu bytes, %zu needed for %u layers", len, need, hdr[1]);
    isochron_clock_t *c;
    int rc = isochron_clock_create(timer, &c);
    if (rc) return rc;
    p += FLAT_HEADER;
    for (uint32_t i = 0; i < hdr[1]; i++, p += FLAT_LAYER) {
        uint32_t k[2];
        memcpy(k, p, 8);
        if (k[0] > ISOCHRON_LM_LINEAR) { free(c); return isochron_set_error(ISOCHRON_EPARSE, "clock unflatten: bad layer kind %u", k[0]); }
        c->layer[i].kind = (isochron_lm_kind_t)k[0];
        memcpy(&c->layer[i].slope, p + 8, 8);
        memcpy(&c->layer[i].intercept, p + 16, 8);
    }
    c->depth = (int)hdr[1];
    merge_layers(c);
    *out = c;
    return ISOCHRON_OK;
}
