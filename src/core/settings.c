/*
 * Settings given as environment variables (settings.h): the checks of the
 * PMPI layers' ISOCHRON_CC_* and ISOCHRON_TRACE_* variables, written once.
 * Numbers go through isochron_parse_double/_long (finite, the whole string),
 * names through isochron_names_find/_join, lists through isochron_list_ok:
 * the parsers behind the drivers' options (issue 30: the layers answer bad
 * input as the drivers do). Directories are created and tried at start
 * (a file created and removed), so a run never learns at its end that its
 * output cannot be written. No MPI, no exit: the caller decides.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "isochron.h"
#include "core/util.h"
#include "core/settings.h"

extern char **environ;

const char *isochron_setting_get(const char *var, const char *dflt)
{
    const char *v = getenv(var);
    return v && *v ? v : dflt;
}

int isochron_setting_number(const char *var, const char *v, double lo, double hi, int zero_ok, const char *unit, double *out,
                            char *err, size_t errlen)
{
    double d;
    if (isochron_parse_double(v, &d) == 0 && ((d >= lo && d <= hi) || (zero_ok && d == 0))) {
        *out = d;
        return 0;
    }
    snprintf(err, errlen, "%s=%s: expected %s%s in [%g, %g]", var, v ? v : "", zero_ok ? "0 (off) or " : "", unit, lo, hi);
    return -1;
}

int isochron_setting_integer(const char *var, const char *v, long lo, long hi, long *out, char *err, size_t errlen)
{
    long n;
    if (isochron_parse_long(v, &n) == 0 && n >= lo && n <= hi) {
        *out = n;
        return 0;
    }
    snprintf(err, errlen, "%s=%s: expected an integer in [%ld, %ld]", var, v ? v : "", lo, hi);
    return -1;
}

int isochron_setting_choice(const char *var, const char *v, const char *const *names, int n, const char *what, int *out,
                            char *err, size_t errlen)
{
    int i = isochron_names_find(names, n, isochron_name_at_string, v);
    if (i >= 0) {
        *out = i;
        return 0;
    }
    char valid[1024];
    isochron_names_join(names, n, isochron_name_at_string, valid, sizeof valid);
    snprintf(err, errlen, "%s=%s: not a %s; valid: %s", var, v ? v : "", what, valid);
    return -1;
}

int isochron_setting_list(const char *var, const char *v, char *err, size_t errlen)
{
    char why[256];
    if (isochron_list_ok(v, why, sizeof why) == 0) return 0;
    snprintf(err, errlen, "%s=%s: %s (a comma-separated list without empty elements)", var, v ? v : "", why);
    return -1;
}

int isochron_setting_text(const char *var, const char *v, size_t max, char *err, size_t errlen)
{
    size_t n = v ? strlen(v) : 0;
    if (n <= max) return 0;
    snprintf(err, errlen, "%s: %zu bytes, longer than the %zu allowed (nothing is cut: shorten it)", var, n, max);
    return -1;
}

int isochron_setting_file_name(const char *var, const char *v, size_t max, char *err, size_t errlen)
{
    size_t n = v ? strlen(v) : 0;
    if (!n || n > max) {
        snprintf(err, errlen, "%s=%.200s%s: a file name of 1 to %zu bytes is expected, this one has %zu (nothing is cut)", var,
                 v ? v : "", n > 200 ? "..." : "", max, n);
        return -1;
    }
    if (strchr(v, '/') || !strcmp(v, ".") || !strcmp(v, "..")) {
        snprintf(err, errlen, "%s=%s: a file name is expected, not a path (no '/', not . or ..); the directory is set apart", var, v);
        return -1;
    }
    return 0;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char *buf = strdup(path);
    if (!buf) return -1;
    int rc = 0;
    for (char *s = buf + 1;; s++) {
        if (*s == '/' || !*s) {
            char c = *s;
            *s = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                rc = -1;
                break;
            }
            *s = c;
            if (!c) break;
        }
    }
    free(buf);
    return rc;
}

int isochron_setting_dir(const char *var, const char *v, size_t max, int flags, char *err, size_t errlen)
{
    size_t n = v ? strlen(v) : 0;
    if (!n || n > max) {
        snprintf(err, errlen, "%s=%.200s%s: a directory path of 1 to %zu bytes is expected, this one has %zu (nothing is cut)", var,
                 v ? v : "", n > 200 ? "..." : "", max, n);
        return -1;
    }
    if ((flags & ISOCHRON_DIR_CREATE) && make_dirs(v) != 0) {
        snprintf(err, errlen, "%s=%s: cannot create the directory: %s", var, v, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(v, &st) != 0) {
        snprintf(err, errlen, "%s=%s: %s", var, v, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s=%s: names a %s, not a directory", var, v, S_ISREG(st.st_mode) ? "regular file" : "file");
        return -1;
    }
    DIR *d = opendir(v);
    if (!d) {
        snprintf(err, errlen, "%s=%s: cannot read the directory: %s", var, v, strerror(errno));
        return -1;
    }
    closedir(d);
    if (flags & ISOCHRON_DIR_WRITE) {
        size_t len = n + 40;
        char *probe = malloc(len);
        if (!probe) {
            snprintf(err, errlen, "%s=%s: out of memory", var, v);
            return -1;
        }
        snprintf(probe, len, "%s/.isochron-write-test-XXXXXX", v);
        int fd = mkstemp(probe);
        if (fd < 0) {
            snprintf(err, errlen, "%s=%s: cannot write in the directory: %s", var, v, strerror(errno));
            free(probe);
            return -1;
        }
        close(fd);
        unlink(probe);
        free(probe);
    }
    return 0;
}

int isochron_settings_known(const char *prefix, const char *const *known, int n, char *err, size_t errlen)
{
    size_t pl = strlen(prefix);
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, prefix, pl) != 0) continue;
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        int found = 0;
        for (int i = 0; i < n && !found; i++) found = strlen(known[i]) == len && !strncmp(known[i], *e, len);
        if (found) continue;
        char valid[2048];
        isochron_names_join(known, n, isochron_name_at_string, valid, sizeof valid);
        snprintf(err, errlen, "%.*s: not a setting of this layer (misspelt?); valid: %s", (int)(len > 200 ? 200 : len), *e, valid);
        return -1;
    }
    return 0;
}
