/*
 * The datatypes and reduction ops the built-in operations know, by name
 * (--dtype, --op), and the names of MPI's thread levels: one table each,
 * looked up case-insensitively like every registry of isochron, an unknown
 * name answered with the valid ones. Below
 * the operation files, which name their datatype in records: in registry.c,
 * which lists those files' descriptors, it made registry.c and the operation
 * files depend on each other (tests/layering/check_cycles.py); the thread
 * level names came from thread.c, which setup.c names and which uses kind.c,
 * which uses setup.c.
 */
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

static const char *dtype_names_v[] = { "byte", "char", "int", "long", "float", "double" };

static MPI_Datatype dtype_at(int i)
{
    switch (i) {
    case 0: return MPI_BYTE;
    case 1: return MPI_CHAR;
    case 2: return MPI_INT;
    case 3: return MPI_LONG;
    case 4: return MPI_FLOAT;
    default: return MPI_DOUBLE;
    }
}

static MPI_Op reduce_at(int i)
{
    switch (i) {
    case 0: return MPI_SUM;
    case 1: return MPI_PROD;
    case 2: return MPI_MAX;
    default: return MPI_MIN;
    }
}

static const char *reduce_names_v[] = { "sum", "prod", "max", "min" };

const char *isochron_op_dtype_names(void) { return "byte, char, int, long, float, double"; }
const char *isochron_op_reduce_names(void) { return "sum, prod, max, min"; }

int isochron_op_dtype_find(const char *name, MPI_Datatype *dt, int *size)
{
    int i = isochron_names_find(dtype_names_v, 6, isochron_name_at_string, name);
    if (i >= 0) {
        if (dt) *dt = dtype_at(i);
        if (size) {
            int s = 0;
            MPI_Type_size(dtype_at(i), &s);
            *size = s;
        }
        return ISOCHRON_OK;
    }
    return isochron_set_error(ISOCHRON_ENAME, "unknown datatype '%.64s'; valid: %s", name ? name : "(null)",
                              isochron_op_dtype_names());
}

int isochron_op_reduce_find(const char *name, MPI_Op *op)
{
    int i = isochron_names_find(reduce_names_v, 4, isochron_name_at_string, name);
    if (i >= 0) {
        if (op) *op = reduce_at(i);
        return ISOCHRON_OK;
    }
    return isochron_set_error(ISOCHRON_ENAME, "unknown reduction op '%.64s'; valid: %s", name ? name : "(null)",
                              isochron_op_reduce_names());
}

const char *isochron_op_dtype_name(MPI_Datatype dt)
{
    for (int i = 0; i < 6; i++)
        if (dt == dtype_at(i)) return dtype_names_v[i];
    return "?";
}

const char *isochron_op_reduce_name(MPI_Op op)
{
    for (int i = 0; i < 4; i++)
        if (op == reduce_at(i)) return reduce_names_v[i];
    return "?";
}

const char *isochron_ops_thread_level_name(int level)
{
    if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
    if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
    if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
    if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
    return "an unknown thread level";
}
