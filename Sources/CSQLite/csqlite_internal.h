/*
 * The part of SQLite's own header CSQLite needs, written out so that building needs no
 * <sqlite3.h>: the opaque types, the destructor constant and the signatures it binds.
 *
 * These are SQLite 3's ABI (soname libsqlite3.so.0), which SQLite keeps stable: functions are
 * only ever added, never changed (https://sqlite.org/c3ref/intro.html).
 */
#ifndef CSQLITE_INTERNAL_H
#define CSQLITE_INTERNAL_H

#include "csqlite.h"

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
/* sqlite_int64 is `long long int` on every compiler but MSVC. */
typedef long long int sqlite3_int64;
typedef void (*sqlite3_destructor_type)(void *);
/* SQLite makes its own copy of bound text before the bind returns. */
#define CSQLITE_TRANSIENT ((sqlite3_destructor_type)-1)

struct csqlite_api {
    const char *(*libversion)(void);
    int (*open_v2)(const char *filename, sqlite3 **db, int flags, const char *vfs);
    int (*close_v2)(sqlite3 *db);
    int (*extended_result_codes)(sqlite3 *db, int onoff);
    int (*busy_timeout)(sqlite3 *db, int ms);
    int (*extended_errcode)(sqlite3 *db);
    const char *(*errmsg)(sqlite3 *db);
    const char *(*errstr)(int code);
    int (*changes)(sqlite3 *db);
    sqlite3_int64 (*last_insert_rowid)(sqlite3 *db);
    int (*get_autocommit)(sqlite3 *db);
    int (*prepare_v2)(sqlite3 *db, const char *sql, int bytes, sqlite3_stmt **statement, const char **tail);
    int (*step)(sqlite3_stmt *statement);
    int (*reset)(sqlite3_stmt *statement);
    int (*clear_bindings)(sqlite3_stmt *statement);
    int (*finalize)(sqlite3_stmt *statement);
    int (*bind_null)(sqlite3_stmt *statement, int index);
    int (*bind_int64)(sqlite3_stmt *statement, int index, sqlite3_int64 value);
    int (*bind_double)(sqlite3_stmt *statement, int index, double value);
    int (*bind_text)(sqlite3_stmt *statement, int index, const char *text, int bytes, sqlite3_destructor_type destructor);
    int (*column_count)(sqlite3_stmt *statement);
    const char *(*column_name)(sqlite3_stmt *statement, int column);
    int (*column_type)(sqlite3_stmt *statement, int column);
    sqlite3_int64 (*column_int64)(sqlite3_stmt *statement, int column);
    double (*column_double)(sqlite3_stmt *statement, int column);
    const unsigned char *(*column_text)(sqlite3_stmt *statement, int column);
    int (*column_bytes)(sqlite3_stmt *statement, int column);
};

#endif /* CSQLITE_INTERNAL_H */
