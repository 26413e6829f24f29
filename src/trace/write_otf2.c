/*
 * OTF2 writer of libisochron-trace.so (rank 0, at MPI_Finalize, through
 * libotf2 in serial mode: rank 0 writes every rank's location). One location
 * group (process) and one location per rank; one region per MPI function
 * (paradigm MPI, role from its category in src/pmpi/mpi.tbl); Enter/Leave events at global
 * time in nanoseconds from the trace's origin (clock properties: 1 GHz, offset
 * 0). Each event carries attributes: the local timestamp (ns, this rank's
 * timer), the bytes, the communicator's size, the peer and the root. The clock metadata
 * (correction applied, accuracy check) are archive properties ISOCHRON::*.
 */
#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <otf2/otf2.h>
#include "trace/trace_internal.h"

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *cd, bool final)
{
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l) { return 0; }

static uint64_t ns(double s) { return s > 0 ? (uint64_t)llround(s * 1e9) : 0; }

static OTF2_RegionRole role(int category, const char *name)
{
    if (category == ISOCHRON_PMPI_COLL || category == ISOCHRON_PMPI_ICOLL) {
        if (strstr(name, "Barrier")) return OTF2_REGION_ROLE_BARRIER;
        if (strstr(name, "Bcast") || strstr(name, "Scatter")) return OTF2_REGION_ROLE_COLL_ONE2ALL;
        if (strstr(name, "Reduce") && !strstr(name, "All") && !strstr(name, "scatter")) return OTF2_REGION_ROLE_COLL_ALL2ONE;
        if (strstr(name, "Gather") && !strstr(name, "Allgather")) return OTF2_REGION_ROLE_COLL_ALL2ONE;
        return OTF2_REGION_ROLE_COLL_ALL2ALL;
    }
    if (category == ISOCHRON_PMPI_P2P || category == ISOCHRON_PMPI_IP2P) return OTF2_REGION_ROLE_POINT2POINT;
    if (category == ISOCHRON_PMPI_RMA) return OTF2_REGION_ROLE_RMA;
    return OTF2_REGION_ROLE_FUNCTION;
}

/* OTF2 refuses to write over an archive: remove a previous archive of this name (its anchor, global
 * definitions and the per-location files of its trace directory, nothing else), as NAME.json is
 * overwritten too. */
static void remove_old_archive(const char *dir, const char *name)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s.otf2", dir, name);
    if (access(p, F_OK)) return;
    unlink(p);
    snprintf(p, sizeof p, "%s/%s.def", dir, name);
    unlink(p);
    snprintf(p, sizeof p, "%s/%s", dir, name);
    DIR *d = opendir(p);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (n > 4 && (!strcmp(e->d_name + n - 4, ".evt") || !strcmp(e->d_name + n - 4, ".def"))) {
                char f[2400];
                snprintf(f, sizeof f, "%s/%s", p, e->d_name);
                unlink(f);
            }
        }
        closedir(d);
        rmdir(p);
    }
}

#define OK(x) do { if ((code = (x)) != OTF2_SUCCESS) goto fail; } while (0)

int itr_write_otf2(const char *dir, const char *name, const itr_trace_t *t, char *why, size_t whylen)
{
    OTF2_ErrorCode code = OTF2_SUCCESS;
    remove_old_archive(dir, name);
    errno = 0;
    OTF2_Archive *ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        snprintf(why, whylen, "cannot open the archive%s%s", errno ? ": " : "", errno ? strerror(errno) : "");
        return -1;
    }
    OTF2_FlushCallbacks fc = {pre_flush, post_flush};
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OK(OTF2_Archive_SetFlushCallbacks(ar, &fc, NULL));
    OK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    OK(OTF2_Archive_SetCreator(ar, "isochron libisochron-trace"));
    OK(OTF2_Archive_SetDescription(ar, "MPI calls on isochron's synchronized global clock"));
    for (int i = 0; i < t->nmeta; i++) {
        char key[128] = "ISOCHRON::";
        size_t o = strlen(key);
        for (const char *s = t->meta_keys[i]; *s && o < sizeof key - 1; s++) key[o++] = (char)toupper((unsigned char)*s);
        key[o] = 0;
        OK(OTF2_Archive_SetProperty(ar, key, t->meta_vals[i], true));
    }
    OK(OTF2_Archive_OpenEvtFiles(ar));
    enum { A_LOCAL = 0, A_BYTES = 1, A_COMMSIZE = 2, A_PEER = 3, A_ROOT = 4, NATTR = 5 };
    const itr_out_t *e = t->ev;
    for (int r = 0; r < t->nranks; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)r);
        if (!w) goto fail;
        for (int64_t i = 0; i < t->counts[r]; i++, e++) {
            OTF2_AttributeList_RemoveAllAttributes(al);
            OTF2_AttributeList_AddInt64(al, A_LOCAL, (int64_t)llround(e->l0 * 1e9));
            OTF2_AttributeList_AddInt64(al, A_BYTES, e->bytes);
            OTF2_AttributeList_AddInt32(al, A_COMMSIZE, e->comm_size);
            OTF2_AttributeList_AddInt32(al, A_PEER, e->peer);
            OTF2_AttributeList_AddInt32(al, A_ROOT, e->root);
            OK(OTF2_EvtWriter_Enter(w, al, ns(e->g0 - t->gmin), (OTF2_RegionRef)e->call));
            OTF2_AttributeList_AddInt64(al, A_LOCAL, (int64_t)llround(e->l1 * 1e9));
            OK(OTF2_EvtWriter_Leave(w, al, ns(e->g1 - t->gmin), (OTF2_RegionRef)e->call));
        }
        OK(OTF2_Archive_CloseEvtWriter(ar, w));
    }
    OK(OTF2_Archive_CloseEvtFiles(ar));
    OK(OTF2_Archive_OpenDefFiles(ar));
    for (int r = 0; r < t->nranks; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)r);
        if (!dw) goto fail;
        OK(OTF2_Archive_CloseDefWriter(ar, dw));
    }
    OK(OTF2_Archive_CloseDefFiles(ar));
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!g) goto fail;
    OK(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ULL, 0, ns(t->gmax - t->gmin) + 1, OTF2_UNDEFINED_TIMESTAMP));
    uint32_t s = 0;
    /* strings: 0 "", 1 machine, 2 "node", then per-call names, attribute names, rank names */
    OK(OTF2_GlobalDefWriter_WriteString(g, s++, ""));
    OK(OTF2_GlobalDefWriter_WriteString(g, s++, "isochron job"));
    OK(OTF2_GlobalDefWriter_WriteString(g, s++, "machine"));
    OK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (int i = 0; i < ISOCHRON_PMPI_NIDS; i++) {
        if (!t->calls[i].name) continue;
        uint32_t sn = s++;
        OK(OTF2_GlobalDefWriter_WriteString(g, sn, t->calls[i].name));
        OK(OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)i, sn, sn, 0, role(t->calls[i].category, t->calls[i].name),
                                            OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0));
    }
    static const char *an[NATTR][2] = {{"local_time_ns", "this rank's own timer at the event (ns), before the clock correction"},
                                       {"bytes", "count x datatype size (-1: not recorded)"},
                                       {"comm_size", "size of the call's communicator (0: none)"},
                                       {"peer", "dest, source or target rank as passed (-1: none)"},
                                       {"root", "root rank (-1: none)"}};
    static const OTF2_Type at[NATTR] = {OTF2_TYPE_INT64, OTF2_TYPE_INT64, OTF2_TYPE_INT32, OTF2_TYPE_INT32, OTF2_TYPE_INT32};
    for (int i = 0; i < NATTR; i++) {
        uint32_t n1 = s++, n2 = s++;
        OK(OTF2_GlobalDefWriter_WriteString(g, n1, an[i][0]));
        OK(OTF2_GlobalDefWriter_WriteString(g, n2, an[i][1]));
        OK(OTF2_GlobalDefWriter_WriteAttribute(g, (OTF2_AttributeRef)i, n1, n2, at[i]));
    }
    for (int r = 0; r < t->nranks; r++) {
        char nm[32];
        snprintf(nm, sizeof nm, "rank %d", r);
        uint32_t sn = s++;
        OK(OTF2_GlobalDefWriter_WriteString(g, sn, nm));
        OK(OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, sn, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                   OTF2_UNDEFINED_LOCATION_GROUP));
        OK(OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)r, sn, OTF2_LOCATION_TYPE_CPU_THREAD,
                                              2 * (uint64_t)t->counts[r], (OTF2_LocationGroupRef)r));
    }
    OK(OTF2_Archive_CloseGlobalDefWriter(ar, g));
    OTF2_AttributeList_Delete(al);
    if ((code = OTF2_Archive_Close(ar)) == OTF2_SUCCESS) return 0;
    snprintf(why, whylen, "closing the archive: %s (%s)", OTF2_Error_GetDescription(code), OTF2_Error_GetName(code));
    return -1;
fail:
    snprintf(why, whylen, "%s (%s)%s%s", OTF2_Error_GetDescription(code), OTF2_Error_GetName(code), errno ? "; last OS error: " : "",
             errno ? strerror(errno) : "");
    OTF2_AttributeList_Delete(al);
    OTF2_Archive_Close(ar);
    return -1;
}
