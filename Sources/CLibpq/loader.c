/* libpq, loaded on first use: each PQ* function PostgresLoop calls is defined here and calls the
   same function of libpq.so.5, found with dlsym once. Until libpq is loaded, or when it cannot be,
   each answers as libpq answers a failure (NULL, -1, CONNECTION_BAD, PGRES_FATAL_ERROR, …). */
#include "CLibpq.h"

#include "CLoader.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CLIBPQ_LIBRARY "libpq.so.5"

/* name, return type, parameters, arguments, the answer when libpq is missing */
#define CLIBPQ_FUNCTIONS(X) \
    X(PQstatus, ConnStatusType, (const PGconn *conn), (conn), CONNECTION_BAD) \
    X(PQconsumeInput, int, (PGconn *conn), (conn), 0) \
    X(PQnotifies, PGnotify *, (PGconn *conn), (conn), NULL) \
    X(PQconnectStartParams, PGconn *, (const char *const *keywords, const char *const *values, int expand), (keywords, values, expand), NULL) \
    X(PQconnectPoll, PostgresPollingStatusType, (PGconn *conn), (conn), PGRES_POLLING_FAILED) \
    X(PQcmdTuples, char *, (PGresult *res), (res), NULL) \
    X(PQsocket, int, (const PGconn *conn), (conn), -1) \
    X(PQsetnonblocking, int, (PGconn *conn, int arg), (conn, arg), -1) \
    X(PQsetNoticeReceiver, PQnoticeReceiver, (PGconn *conn, PQnoticeReceiver proc, void *arg), (conn, proc, arg), NULL) \
    X(PQsendQueryPrepared, int, (PGconn *conn, const char *name, int n, const char *const *values, const int *lengths, const int *formats, int resultFormat), (conn, name, n, values, lengths, formats, resultFormat), 0) \
    X(PQsendQueryParams, int, (PGconn *conn, const char *command, int n, const Oid *types, const char *const *values, const int *lengths, const int *formats, int resultFormat), (conn, command, n, types, values, lengths, formats, resultFormat), 0) \
    X(PQsendPrepare, int, (PGconn *conn, const char *name, const char *query, int n, const Oid *types), (conn, name, query, n, types), 0) \
    X(PQresultStatus, ExecStatusType, (const PGresult *res), (res), PGRES_FATAL_ERROR) \
    X(PQresultErrorMessage, char *, (const PGresult *res), (res), NULL) \
    X(PQresultErrorField, char *, (const PGresult *res, int field), (res, field), NULL) \
    X(PQpipelineSync, int, (PGconn *conn), (conn), 0) \
    X(PQntuples, int, (const PGresult *res), (res), 0) \
    X(PQnfields, int, (const PGresult *res), (res), 0) \
    X(PQisBusy, int, (PGconn *conn), (conn), 0) \
    X(PQgetvalue, char *, (const PGresult *res, int row, int field), (res, row, field), NULL) \
    X(PQgetlength, int, (const PGresult *res, int row, int field), (res, row, field), 0) \
    X(PQgetisnull, int, (const PGresult *res, int row, int field), (res, row, field), 1) \
    X(PQgetResult, PGresult *, (PGconn *conn), (conn), NULL) \
    X(PQfname, char *, (const PGresult *res, int field), (res, field), NULL) \
    X(PQflush, int, (PGconn *conn), (conn), -1) \
    X(PQerrorMessage, char *, (const PGconn *conn), (conn), NULL) \
    X(PQenterPipelineMode, int, (PGconn *conn), (conn), 0) \
    X(PQgetCancel, PGcancel *, (PGconn *conn), (conn), NULL) \
    X(PQcancel, int, (PGcancel *cancel, char *errbuf, int errbufsize), (cancel, errbuf, errbufsize), 0)

/* Functions without a result. */
#define CLIBPQ_PROCEDURES(X) \
    X(PQfinish, (PGconn *conn), (conn)) \
    X(PQconninfoFree, (PQconninfoOption *options), (options)) \
    X(PQfreeCancel, (PGcancel *cancel), (cancel)) \
    X(PQclear, (PGresult *res), (res))

#define CLIBPQ_POINTER(name, type, params, args, missing) static type (*loaded_##name) params;
#define CLIBPQ_PROCEDURE_POINTER(name, params, args) static void (*loaded_##name) params;
CLIBPQ_FUNCTIONS(CLIBPQ_POINTER)
CLIBPQ_PROCEDURES(CLIBPQ_PROCEDURE_POINTER)
static PQconninfoOption *(*loaded_PQconninfoParse)(const char *conninfo, char **errmsg);
static void (*loaded_PQfreemem)(void *ptr);

static cloader_library libpq = {CLIBPQ_LIBRARY, " (libpq 14 or later is needed)", PTHREAD_ONCE_INIT};

static void load(void) {
    if (!cloader_open(&libpq)) return;
#define CLIBPQ_RESOLVE(name, type, params, args, missing) loaded_##name = (type (*) params)cloader_function(&libpq, #name);
#define CLIBPQ_PROCEDURE_RESOLVE(name, params, args) loaded_##name = (void (*) params)cloader_function(&libpq, #name);
    CLIBPQ_FUNCTIONS(CLIBPQ_RESOLVE)
    CLIBPQ_PROCEDURES(CLIBPQ_PROCEDURE_RESOLVE)
    loaded_PQconninfoParse = (PQconninfoOption * (*)(const char *, char **))cloader_function(&libpq, "PQconninfoParse");
    loaded_PQfreemem = (void (*)(void *))cloader_function(&libpq, "PQfreemem");
}

static int ready(void) { return cloader_ready(&libpq, load); }

const char *clibpq_load_error(void) {
    return ready() ? NULL : libpq.failure;
}

#define CLIBPQ_DEFINE(name, type, params, args, missing) \
    type name params { return ready() ? loaded_##name args : (missing); }
#define CLIBPQ_PROCEDURE_DEFINE(name, params, args) \
    void name params { if (ready()) loaded_##name args; }
CLIBPQ_FUNCTIONS(CLIBPQ_DEFINE)
CLIBPQ_PROCEDURES(CLIBPQ_PROCEDURE_DEFINE)

PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg) {
    if (ready()) return loaded_PQconninfoParse(conninfo, errmsg);
    if (errmsg != NULL) *errmsg = strdup(libpq.failure);
    return NULL;
}

/* libpq's PQfreemem is free(); without libpq the only memory handed out is PQconninfoParse's
   message above, from strdup. */
void PQfreemem(void *ptr) {
    if (ready()) loaded_PQfreemem(ptr); else free(ptr);
}
