/*
 * Data patterns that let validate() prove an operation delivered the right
 * data (the correctness check OSU and IMB offer with -c / -check, done here
 * for every element and every datatype and reduction op).
 *
 * Data movement: element i of rank r in repetition k holds
 *     (r*A + i*B + k*C + D) mod 2^bits
 * with A, B, C odd and bits the exactly representable width of the type (8
 * for byte/char, 31 for int, 62 for long, 24 for float, 52 for double). For a
 * fixed element the map rank -> value is one-to-one, for a fixed rank the map
 * index -> value is one-to-one, and consecutive repetitions differ in every
 * element: data from the wrong rank, the wrong offset or the previous
 * repetition is caught (byte types only modulo 256).
 *
 * Reductions: small integers chosen per op so every result is exact in int,
 * long, float and double whatever the order of evaluation:
 *   sum   ((7r + 3i + 5k) mod 61) - 30                     (|sum| <= 30 p)
 *   prod  +-1 or +-2; a factor 2 only on ranks < 30, so |prod| <= 2^30, and
 *         powers of two are exact in float at any exponent used here;
 *   max   h(i,k) (p+1) + 1 + ((r + i + k) mod p): the values of one element
 *   min   over the ranks are p consecutive integers offset per element, so
 *         the extreme is unique, sits on a rank that rotates with i and k,
 *         and the result encodes that rank.
 * Receive buffers are poisoned with 0xA5 bytes before each run: as int,
 * long, float or double that is never a pattern value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "ops/ops_impl.h"

#define PA 0x9E3779B97F4A7C15ull
#define PB 0xBF58476D1CE4E5B9ull
#define PC 0x94D049BB133111EBull
#define PD 0x2545F4914F6CDD1Dull

int isochron_ops_tkind(MPI_Datatype dt)
{
    if (dt == MPI_BYTE) return TK_BYTE;
    if (dt == MPI_CHAR) return TK_CHAR;
    if (dt == MPI_INT) return TK_INT;
    if (dt == MPI_LONG) return TK_LONG;
    if (dt == MPI_FLOAT) return TK_FLOAT;
    if (dt == MPI_DOUBLE) return TK_DOUBLE;
    return TK_OTHER;
}

int isochron_ops_rkind(MPI_Op op)
{
    if (op == MPI_SUM) return RK_SUM;
    if (op == MPI_PROD) return RK_PROD;
    if (op == MPI_MAX) return RK_MAX;
    if (op == MPI_MIN) return RK_MIN;
    return RK_OTHER;
}

static uint64_t mask_of(int tk)
{
    switch (tk) {
    case TK_BYTE: case TK_CHAR: return 0xFFull;
    case TK_INT: return 0x7FFFFFFFull;
    case TK_LONG: return sizeof(long) >= 8 ? 0x3FFFFFFFFFFFFFFFull : 0x7FFFFFFFull;
    case TK_FLOAT: return 0xFFFFFFull;
    case TK_DOUBLE: return 0xFFFFFFFFFFFFFull;
    default: return 0xFFull;
    }
}

long long isochron_ops_mv(int tk, int rank, size_t i, int rep)
{
    uint64_t v = (uint64_t)(unsigned)rank * PA + (uint64_t)i * PB + (uint64_t)(unsigned)rep * PC + PD;
    return (long long)(v & mask_of(tk));
}

long long isochron_ops_rv(int rk, int rank, size_t i, int rep, int size)
{
    uint64_t r = (uint64_t)(unsigned)rank, k = (uint64_t)(unsigned)rep;
    switch (rk) {
    case RK_SUM:
        return (long long)((7 * (r % 61) + 3 * (i % 61) + 5 * (k % 61)) % 61) - 30;
    case RK_PROD: {
        long long sign = ((r % 5) + 2 * (i % 5) + (k % 5)) % 5 == 0 ? -1 : 1;
        long long mag = (r < 30 && ((r % 3) + (i % 3) + (k % 3)) % 3 == 0) ? 2 : 1;
        return sign * mag;
    }
    case RK_MAX: case RK_MIN: default: {
        uint64_t p = (uint64_t)(size > 0 ? size : 1);
        long long h = (long long)((7 * (i % 23) + 3 * (k % 23)) % 23) - 11;
        return h * (long long)(p + 1) + 1 + (long long)(((r % p) + (i % p) + (k % p)) % p);
    }
    }
}

long long isochron_ops_fold(int rk, long long a, long long b)
{
    switch (rk) {
    case RK_SUM: return a + b;
    case RK_PROD: return a * b;
    case RK_MAX: return a > b ? a : b;
    case RK_MIN: return a < b ? a : b;
    default: return a;
    }
}

/* BODY(T) once, for T the C type of element kind TK (byte and char: unsigned char). */
#define BY_TYPE(tk, BODY)                                                                          \
    switch (tk) {                                                                                  \
    case TK_INT: BODY(int); break;                                                                 \
    case TK_LONG: BODY(long); break;                                                               \
    case TK_FLOAT: BODY(float); break;                                                             \
    case TK_DOUBLE: BODY(double); break;                                                           \
    default: BODY(unsigned char); break;                                                           \
    }

#define SIZE_OF(T) return (int)sizeof(T)
static int elem_size(int tk) { BY_TYPE(tk, SIZE_OF) }

#define STORE(T) ((T *)buf)[idx] = (T)v
static void store(void *buf, size_t idx, int tk, long long v) { BY_TYPE(tk, STORE) }

/* The movement pattern of a block, one loop per element type with the
 * value stepped by PB (no per-element dispatch): validating the 64 MiB a
 * receiver of bw gets at 1 MiB took 0.5 s element by element. The values
 * are exactly isochron_ops_mv's. CHECK: 1 if every element matches. One
 * loop text serves every type (BY_TYPE). */
#define MV_LOOP(T, OP)                                                                             \
    do {                                                                                           \
        T *p_ = (T *)buf;                                                                          \
        for (size_t j = 0; j < n; j++, x += PB) OP;                                                \
    } while (0)
#define MV_BLOCK(T)                                                                                \
    if (check) MV_LOOP(const T, if (p_[j] != (T)(long long)(x & m)) return 0);                     \
    else MV_LOOP(T, p_[j] = (T)(long long)(x & m))
static int mv_block(void *buf, int tk, int rank, size_t first, size_t n, int rep, int check)
{
    uint64_t x = (uint64_t)(unsigned)rank * PA + (uint64_t)first * PB + (uint64_t)(unsigned)rep * PC + PD, m = mask_of(tk);
    BY_TYPE(tk, MV_BLOCK)
    return 1;
}

void isochron_ops_fill_mv(void *buf, int tk, int rank, size_t first, size_t n, int rep)
{
    mv_block(buf, tk, rank, first, n, rep, 0);
}

/* The reduction pattern (and so every fold of it over ranks) is periodic in
 * the element index: sum in i mod 61, prod in i mod 3 and i mod 5, max/min in
 * i mod 23 and i mod p. Filling and checking go through one period of
 * values, not a function call and a division per element. */
static size_t rv_period(int rk, int size)
{
    switch (rk) {
    case RK_SUM: return 61;
    case RK_PROD: return 15;
    default: return 23 * (size_t)(size > 0 ? size : 1);
    }
}

/* tab[t] = the fold over ranks lo..hi of element first + t, t < P */
static long long *rv_table(int rk, int lo, int hi, size_t first, int rep, int size, size_t P)
{
    long long *tab = malloc(P * sizeof *tab);
    if (!tab) return NULL;
    for (size_t t = 0; t < P; t++) {
        long long acc = isochron_ops_rv(rk, lo, first + t, rep, size);
        for (int j = lo + 1; j <= hi; j++) acc = isochron_ops_fold(rk, acc, isochron_ops_rv(rk, j, first + t, rep, size));
        tab[t] = acc;
    }
    return tab;
}

#define RV_LOOP(T, OP)                                                                             \
    do {                                                                                           \
        T *p_ = (T *)buf;                                                                          \
        for (size_t e = 0, t = 0; e < n; e++, t = t + 1 == P ? 0 : t + 1) OP;                     \
    } while (0)
/* CHECK 0: write tab's values over buf[0..n); 1: return 1 if buf matches. */
#define RV_BLOCK(T)                                                                                \
    if (check) RV_LOOP(const T, if (p_[e] != (T)tab[t]) return 0);                                 \
    else RV_LOOP(T, p_[e] = (T)tab[t])
static int rv_block(void *buf, int tk, const long long *tab, size_t P, size_t n, int check)
{
    BY_TYPE(tk, RV_BLOCK)
    return 1;
}

void isochron_ops_fill_rv(void *buf, int tk, int rk, int rank, size_t first, size_t n, int rep, int size)
{
    size_t P = rv_period(rk, size);
    long long *tab = n > P ? rv_table(rk, rank, rank, first, rep, size, P) : NULL;
    if (tab) {
        rv_block(buf, tk, tab, P, n, 0);
        free(tab);
        return;
    }
    for (size_t j = 0; j < n; j++) store(buf, j, tk, isochron_ops_rv(rk, rank, first + j, rep, size));
}

void isochron_ops_poison(void *buf, size_t bytes)
{
    if (buf && bytes) memset(buf, 0xA5, bytes);
}

#define EQUAL(T) return ((const T *)buf)[idx] == (T)v
int isochron_ops_elem_equal(const void *buf, size_t idx, int tk, long long v) { BY_TYPE(tk, EQUAL) }

void isochron_ops_elem_format(const void *buf, size_t idx, int tk, char *out, size_t n)
{
    switch (tk) {
    case TK_INT: snprintf(out, n, "%d", ((const int *)buf)[idx]); break;
    case TK_LONG: snprintf(out, n, "%ld", ((const long *)buf)[idx]); break;
    case TK_FLOAT: snprintf(out, n, "%.9g", (double)((const float *)buf)[idx]); break;
    case TK_DOUBLE: snprintf(out, n, "%.17g", ((const double *)buf)[idx]); break;
    default: snprintf(out, n, "%u", (unsigned)((const unsigned char *)buf)[idx]); break;
    }
}

void isochron_ops_vblock(isochron_ops_vstate_t *v, const void *buf, size_t off, size_t n, int tk, int from, size_t first,
                         int rep)
{
    v->total += n;
    /* the usual case at full speed; the element-wise loop below only to describe a mismatch */
    if (mv_block((char *)(uintptr_t)buf + off * (size_t)elem_size(tk), tk, from, first, n, rep, 1)) return;
    for (size_t e = 0; e < n; e++) {
        long long ex = isochron_ops_mv(tk, from, first + e, rep);
        if (isochron_ops_elem_equal(buf, off + e, tk, ex)) continue;
        if (v->bad++ == 0) {
            v->first = off + e;
            v->from = from;
            v->expected = ex;
            isochron_ops_elem_format(buf, off + e, tk, v->got, sizeof v->got);
        }
    }
}

void isochron_ops_rblock(isochron_ops_vstate_t *v, const void *buf, size_t off, size_t n, int tk, int rk, int lo, int hi,
                         size_t first, int rep, int size)
{
    v->total += n;
    size_t P = rv_period(rk, size);
    long long *tab = n > P ? rv_table(rk, lo, hi, first, rep, size, P) : NULL;
    int ok = tab && rv_block((char *)(uintptr_t)buf + off * (size_t)elem_size(tk), tk, tab, P, n, 1);
    free(tab);
    if (ok) return;
    for (size_t e = 0; e < n; e++) {
        long long ex = isochron_ops_rv(rk, lo, first + e, rep, size);
        for (int j = lo + 1; j <= hi; j++) ex = isochron_ops_fold(rk, ex, isochron_ops_rv(rk, j, first + e, rep, size));
        if (isochron_ops_elem_equal(buf, off + e, tk, ex)) continue;
        if (v->bad++ == 0) {
            v->first = off + e;
            v->from = -1;
            v->expected = ex;
            isochron_ops_elem_format(buf, off + e, tk, v->got, sizeof v->got);
        }
    }
}
