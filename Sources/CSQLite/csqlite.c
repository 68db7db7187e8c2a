/*
 * csqlite.c — opening libsqlite3.so.0 at run time, once, and the calls of csqlite.h, each
 * forwarded to the function of the same name bound from it.
 */
#include "csqlite_internal.h"

#include <cdynamic_library.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static struct csqlite_api api;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/* Written once inside load_once, read only after it: pthread_once orders them. */
static int load_result = -1;
static char load_reason[CSQLITE_REASON_SIZE];

#define CSQLITE_BIND(member)                                                                                 \
    cdynamic_library_bind(handle, CSQLITE_LIBRARY_FILE, "function", "sqlite3_" #member, &api.member,           \
                          sizeof(api.member), load_reason, sizeof(load_reason))

static void csqlite_load_once(void)
{
    /* RTLD_LOCAL: SQLite's symbols stay out of the global namespace, so nothing else loaded
     * later binds to this copy by accident. */
    void *handle = cdynamic_library_open(CSQLITE_LIBRARY_FILE, RTLD_NOW | RTLD_LOCAL, load_reason, sizeof(load_reason));
    if (!handle)
        return;
    bool bound = CSQLITE_BIND(libversion) && CSQLITE_BIND(open_v2) && CSQLITE_BIND(close_v2)
                 && CSQLITE_BIND(extended_result_codes) && CSQLITE_BIND(busy_timeout) && CSQLITE_BIND(extended_errcode)
                 && CSQLITE_BIND(errmsg) && CSQLITE_BIND(errstr) && CSQLITE_BIND(changes)
                 && CSQLITE_BIND(last_insert_rowid) && CSQLITE_BIND(get_autocommit) && CSQLITE_BIND(prepare_v2)
                 && CSQLITE_BIND(step) && CSQLITE_BIND(reset) && CSQLITE_BIND(clear_bindings) && CSQLITE_BIND(finalize)
                 && CSQLITE_BIND(bind_null) && CSQLITE_BIND(bind_int64) && CSQLITE_BIND(bind_double)
                 && CSQLITE_BIND(bind_text) && CSQLITE_BIND(column_count) && CSQLITE_BIND(column_name)
                 && CSQLITE_BIND(column_type) && CSQLITE_BIND(column_int64) && CSQLITE_BIND(column_double)
                 && CSQLITE_BIND(column_text) && CSQLITE_BIND(column_bytes);
    if (!bound) {
        memset(&api, 0, sizeof(api));
        dlclose(handle);
        return;
    }
    /* The handle is never closed: statements and connections may live until the process ends. */
    load_result = 0;
}

int csqlite_load(char *reason, size_t reason_size)
{
    pthread_once(&load_once, csqlite_load_once);
    if (load_result != 0 && reason && reason_size > 0)
        snprintf(reason, reason_size, "%s", load_reason);
    return load_result;
}

const char *csqlite_libversion(void) { return api.libversion(); }

int csqlite_open_v2(const char *filename, csqlite_db **db, int flags, const char *vfs)
{
    sqlite3 *raw = NULL;
    int rc = api.open_v2(filename, &raw, flags, vfs);
    *db = (csqlite_db *)raw;
    return rc;
}

int csqlite_close_v2(csqlite_db *db) { return api.close_v2((sqlite3 *)db); }
int csqlite_extended_result_codes(csqlite_db *db, int onoff) { return api.extended_result_codes((sqlite3 *)db, onoff); }
int csqlite_busy_timeout(csqlite_db *db, int milliseconds) { return api.busy_timeout((sqlite3 *)db, milliseconds); }
int csqlite_extended_errcode(csqlite_db *db) { return api.extended_errcode((sqlite3 *)db); }
const char *csqlite_errmsg(csqlite_db *db) { return api.errmsg((sqlite3 *)db); }
const char *csqlite_errstr(int code) { return api.errstr(code); }
int csqlite_changes(csqlite_db *db) { return api.changes((sqlite3 *)db); }
int64_t csqlite_last_insert_rowid(csqlite_db *db) { return (int64_t)api.last_insert_rowid((sqlite3 *)db); }
int csqlite_get_autocommit(csqlite_db *db) { return api.get_autocommit((sqlite3 *)db); }

int csqlite_prepare_v2(csqlite_db *db, const char *sql, int bytes, csqlite_stmt **statement, const char **tail)
{
    sqlite3_stmt *raw = NULL;
    int rc = api.prepare_v2((sqlite3 *)db, sql, bytes, &raw, tail);
    *statement = (csqlite_stmt *)raw;
    return rc;
}

int csqlite_step(csqlite_stmt *statement) { return api.step((sqlite3_stmt *)statement); }
int csqlite_reset(csqlite_stmt *statement) { return api.reset((sqlite3_stmt *)statement); }
int csqlite_clear_bindings(csqlite_stmt *statement) { return api.clear_bindings((sqlite3_stmt *)statement); }
int csqlite_finalize(csqlite_stmt *statement) { return api.finalize((sqlite3_stmt *)statement); }

int csqlite_bind_null(csqlite_stmt *statement, int index) { return api.bind_null((sqlite3_stmt *)statement, index); }
int csqlite_bind_int64(csqlite_stmt *statement, int index, int64_t value)
{
    return api.bind_int64((sqlite3_stmt *)statement, index, (sqlite3_int64)value);
}
int csqlite_bind_double(csqlite_stmt *statement, int index, double value)
{
    return api.bind_double((sqlite3_stmt *)statement, index, value);
}
int csqlite_bind_text(csqlite_stmt *statement, int index, const char *text, int bytes)
{
    return api.bind_text((sqlite3_stmt *)statement, index, text, bytes, CSQLITE_TRANSIENT);
}

int csqlite_column_count(csqlite_stmt *statement) { return api.column_count((sqlite3_stmt *)statement); }
const char *csqlite_column_name(csqlite_stmt *statement, int column)
{
    return api.column_name((sqlite3_stmt *)statement, column);
}
int csqlite_column_type(csqlite_stmt *statement, int column) { return api.column_type((sqlite3_stmt *)statement, column); }
int64_t csqlite_column_int64(csqlite_stmt *statement, int column)
{
    return (int64_t)api.column_int64((sqlite3_stmt *)statement, column);
}
double csqlite_column_double(csqlite_stmt *statement, int column)
{
    return api.column_double((sqlite3_stmt *)statement, column);
}
const unsigned char *csqlite_column_text(csqlite_stmt *statement, int column)
{
    return api.column_text((sqlite3_stmt *)statement, column);
}
int csqlite_column_bytes(csqlite_stmt *statement, int column) { return api.column_bytes((sqlite3_stmt *)statement, column); }
