/*
 * The JSON writer of isochron (include/isochron/report.h): every JSON Lines
 * record the library and the drivers write goes through it, so that a number
 * has one format everywhere (issue 11). The format is the shortest of %.15g,
 * %.16g, %.17g that reads back as the same double: 15 significant digits
 * keep ordinary values short ("0.05", "1e-06"), and a global-clock
 * timestamp such as 1712345678.123456789 keeps every bit (a fixed %.9g would
 * lose its microseconds). NaN and infinities are null (JSON has neither).
 * Schema 1 readers (python/) see the same fields as before; only the digits
 * of some numbers differ. Commas are placed by the writer from a per-depth
 * count, so callers never write punctuation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"

void isochron_json_init(isochron_json_t *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
}

int isochron_json_open_string(isochron_json_t *j)
{
    memset(j, 0, sizeof *j);
    j->f = open_memstream(&j->mem, &j->memlen);
    return j->f ? ISOCHRON_OK : isochron_set_error(ISOCHRON_ENOMEM, "json: cannot open a string stream");
}

char *isochron_json_close_string(isochron_json_t *j)
{
    if (j->f) fclose(j->f);
    j->f = NULL;
    char *s = j->mem;
    j->mem = NULL;
    return s ? s : strdup("");
}

const char *isochron_json_format_number(double v, char *buf, size_t len)
{
    if (!isfinite(v)) { snprintf(buf, len, "null"); return buf; }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

/* Before a value: a comma unless it is the first at its depth, follows a
 * key, or is at the top (each top-level value is a record of its own). */
static void sep(isochron_json_t *j)
{
    if (j->after_key) { j->after_key = 0; return; }
    if (j->depth == 0) return;
    int d = j->depth < ISOCHRON_JSON_MAX_DEPTH ? j->depth : ISOCHRON_JSON_MAX_DEPTH - 1;
    if (j->count[d]) fputc(',', j->f);
    j->count[d] = 1;
}

static void open_(isochron_json_t *j, int c)
{
    sep(j);
    fputc(c, j->f);
    if (j->depth + 1 < ISOCHRON_JSON_MAX_DEPTH) j->count[j->depth + 1] = 0;
    j->depth++;
}

static void close_(isochron_json_t *j, int c)
{
    fputc(c, j->f);
    if (j->depth > 0) j->depth--;
}

void isochron_json_object_begin(isochron_json_t *j) { open_(j, '{'); }
void isochron_json_object_end(isochron_json_t *j) { close_(j, '}'); }
void isochron_json_array_begin(isochron_json_t *j) { open_(j, '['); }
void isochron_json_array_end(isochron_json_t *j) { close_(j, ']'); }

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { fputc('\\', f); fputc(c, f); }
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

void isochron_json_key(isochron_json_t *j, const char *key)
{
    sep(j);
    put_string(j->f, key ? key : "");
    fputc(':', j->f);
    j->after_key = 1;
}

void isochron_json_string(isochron_json_t *j, const char *s)
{
    sep(j);
    if (s) put_string(j->f, s); else fputs("null", j->f);
}

void isochron_json_number(isochron_json_t *j, double v)
{
    char buf[40];
    sep(j);
    fputs(isochron_json_format_number(v, buf, sizeof buf), j->f);
}

void isochron_json_int(isochron_json_t *j, long long v) { sep(j); fprintf(j->f, "%lld", v); }
void isochron_json_bool(isochron_json_t *j, int b) { sep(j); fputs(b ? "true" : "false", j->f); }
void isochron_json_null(isochron_json_t *j) { sep(j); fputs("null", j->f); }
void isochron_json_raw(isochron_json_t *j, const char *json) { sep(j); fputs(json && *json ? json : "null", j->f); }

void isochron_json_members(isochron_json_t *j, const char *obj)
{
    if (!obj) return;
    while (*obj == ' ' || *obj == '\n') obj++;
    size_t n = strlen(obj);
    while (n && (obj[n - 1] == ' ' || obj[n - 1] == '\n')) n--;
    if (n < 2 || obj[0] != '{' || obj[n - 1] != '}') return;
    const char *in = obj + 1;
    size_t len = n - 2;
    while (len && (*in == ' ' || *in == '\n')) in++, len--;
    if (!len) return;
    sep(j);
    fwrite(in, 1, len, j->f);
}

void isochron_json_numbers(isochron_json_t *j, const double *v, int n)
{
    isochron_json_array_begin(j);
    for (int i = 0; i < n; i++) isochron_json_number(j, v[i]);
    isochron_json_array_end(j);
}

void isochron_json_kstring(isochron_json_t *j, const char *key, const char *s) { isochron_json_key(j, key); isochron_json_string(j, s); }
void isochron_json_knumber(isochron_json_t *j, const char *key, double v) { isochron_json_key(j, key); isochron_json_number(j, v); }
void isochron_json_kint(isochron_json_t *j, const char *key, long long v) { isochron_json_key(j, key); isochron_json_int(j, v); }
void isochron_json_kbool(isochron_json_t *j, const char *key, int b) { isochron_json_key(j, key); isochron_json_bool(j, b); }

void isochron_json_record_begin(isochron_json_t *j, const char *type)
{
    isochron_json_object_begin(j);
    isochron_json_kint(j, "schema", ISOCHRON_SCHEMA_VERSION);
    isochron_json_kstring(j, "type", type);
}

void isochron_json_record_end(isochron_json_t *j)
{
    isochron_json_object_end(j);
    fputc('\n', j->f);
    fflush(j->f);
}
