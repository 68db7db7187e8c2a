/*
 * csqlite.h — the part of SQLite's C API the count store uses, loaded at run time.
 *
 * Nothing here includes <sqlite3.h>: libsqlite3.so.0 (Debian's libsqlite3-0, which Swift's own
 * install already needs) is opened with dlopen and every function below is looked up and checked
 * when it is loaded, so building needs neither the headers nor libsqlite3-dev. Swift sees only
 * the `csqlite_*` names; each forwards to the SQLite function of the same name and has its
 * signature and meaning (https://sqlite.org/c3ref/funclist.html).
 *
 * Call csqlite_load first: it must have succeeded before any other function is called.
 */
#ifndef CSQLITE_H
#define CSQLITE_H

#include <stddef.h>
#include <stdint.h>

/* The file opened: the soname of SQLite 3's ABI. */
#define CSQLITE_LIBRARY_FILE "libsqlite3.so.0"
/* Room for the reason the library could not be loaded. */
#define CSQLITE_REASON_SIZE 512

/* Primary result codes (the low byte of an extended code). */
#define CSQLITE_OK 0
#define CSQLITE_ERROR 1
#define CSQLITE_PERM 3
#define CSQLITE_BUSY 5
#define CSQLITE_LOCKED 6
#define CSQLITE_READONLY 8
#define CSQLITE_IOERR 10
#define CSQLITE_CORRUPT 11
#define CSQLITE_FULL 13
#define CSQLITE_CANTOPEN 14
#define CSQLITE_CONSTRAINT 19
#define CSQLITE_MISUSE 21
#define CSQLITE_NOTADB 26
#define CSQLITE_ROW 100
#define CSQLITE_DONE 101

/* Extended result codes, the primary code | (n << 8), written out as numbers so Swift sees them:
 * SQLITE_IOERR_WRITE (SQLITE_IOERR | (3<<8)), SQLITE_IOERR_FSYNC (SQLITE_IOERR | (4<<8)),
 * SQLITE_CONSTRAINT_FOREIGNKEY (SQLITE_CONSTRAINT | (3<<8)). */
#define CSQLITE_IOERR_WRITE 778
#define CSQLITE_IOERR_FSYNC 1034
#define CSQLITE_CONSTRAINT_FOREIGNKEY 787

/* sqlite3_open_v2 flags. */
#define CSQLITE_OPEN_READONLY 0x00000001
#define CSQLITE_OPEN_READWRITE 0x00000002
#define CSQLITE_OPEN_CREATE 0x00000004
#define CSQLITE_OPEN_FULLMUTEX 0x00010000

/* Fundamental datatypes (sqlite3_column_type). */
#define CSQLITE_INTEGER 1
#define CSQLITE_FLOAT 2
#define CSQLITE_TEXT 3
#define CSQLITE_BLOB 4
#define CSQLITE_NULL 5

/* A database connection (sqlite3) and a prepared statement (sqlite3_stmt). */
typedef struct csqlite_db csqlite_db;
typedef struct csqlite_stmt csqlite_stmt;

/*
 * Opens CSQLITE_LIBRARY_FILE and binds every function below, once per process (later calls
 * return the first one's outcome). Returns 0, or -1 with `reason` saying why (dlopen's message,
 * or the first function the file lacks). Thread-safe.
 */
int csqlite_load(char *reason, size_t reason_size);

const char *csqlite_libversion(void);

int csqlite_open_v2(const char *filename, csqlite_db **db, int flags, const char *vfs);
int csqlite_close_v2(csqlite_db *db);
int csqlite_extended_result_codes(csqlite_db *db, int onoff);
int csqlite_busy_timeout(csqlite_db *db, int milliseconds);
int csqlite_extended_errcode(csqlite_db *db);
const char *csqlite_errmsg(csqlite_db *db);
const char *csqlite_errstr(int code);
int csqlite_changes(csqlite_db *db);
int64_t csqlite_last_insert_rowid(csqlite_db *db);
int csqlite_get_autocommit(csqlite_db *db);

int csqlite_prepare_v2(csqlite_db *db, const char *sql, int bytes, csqlite_stmt **statement, const char **tail);
int csqlite_step(csqlite_stmt *statement);
int csqlite_reset(csqlite_stmt *statement);
int csqlite_clear_bindings(csqlite_stmt *statement);
int csqlite_finalize(csqlite_stmt *statement);

int csqlite_bind_null(csqlite_stmt *statement, int index);
int csqlite_bind_int64(csqlite_stmt *statement, int index, int64_t value);
int csqlite_bind_double(csqlite_stmt *statement, int index, double value);
/* SQLite copies the text before returning (SQLITE_TRANSIENT): `text` need not outlive the call. */
int csqlite_bind_text(csqlite_stmt *statement, int index, const char *text, int bytes);

int csqlite_column_count(csqlite_stmt *statement);
const char *csqlite_column_name(csqlite_stmt *statement, int column);
int csqlite_column_type(csqlite_stmt *statement, int column);
int64_t csqlite_column_int64(csqlite_stmt *statement, int column);
double csqlite_column_double(csqlite_stmt *statement, int column);
const unsigned char *csqlite_column_text(csqlite_stmt *statement, int column);
int csqlite_column_bytes(csqlite_stmt *statement, int column);

#endif /* CSQLITE_H */
