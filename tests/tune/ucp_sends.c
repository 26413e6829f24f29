/*
 * ucp_sends.so (LD_PRELOAD): counts the tagged messages an MPI library built on UCX (Debian's MPICH
 * 4.0.2, ch4:ucx) hands to ucp_tag_send_nbx and ucp_tag_send_sync_nbx, and prints at exit on
 * stderr "ucp_sends: N messages, B bytes". Every message of a collective on one node goes there,
 * so the counts fingerprint the algorithm that ran (tests/tune/mpich_json_accept.sh). The
 * signatures are UCX's (ucp.h); the types are declared opaquely so that no UCX headers are needed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef void *(*send_fn)(void *ep, const void *buf, size_t count, uint64_t tag, const void *param);

static size_t messages, bytes;

static void *forward(const char *name, send_fn *real, void *ep, const void *buf, size_t count,
                     uint64_t tag, const void *param)
{
    if (!*real) *real = (send_fn)dlsym(RTLD_NEXT, name);
    messages++;
    bytes += count;
    return *real ? (*real)(ep, buf, count, tag, param) : NULL;
}

void *ucp_tag_send_nbx(void *ep, const void *buf, size_t count, uint64_t tag, const void *param);
void *ucp_tag_send_nbx(void *ep, const void *buf, size_t count, uint64_t tag, const void *param)
{
    static send_fn real;
    return forward("ucp_tag_send_nbx", &real, ep, buf, count, tag, param);
}

void *ucp_tag_send_sync_nbx(void *ep, const void *buf, size_t count, uint64_t tag, const void *param);
void *ucp_tag_send_sync_nbx(void *ep, const void *buf, size_t count, uint64_t tag, const void *param)
{
    static send_fn real;
    return forward("ucp_tag_send_sync_nbx", &real, ep, buf, count, tag, param);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "ucp_sends: %zu messages, %zu bytes\n", messages, bytes);
}
