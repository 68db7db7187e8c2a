/*
 * cmosquitto.h — the part of libmosquitto's C API the MQTT client uses, loaded at run time.
 *
 * Nothing here includes <mosquitto.h>: libmosquitto.so.1 (Debian's libmosquitto1, 2.0.11 on
 * Debian 12) is opened with dlopen and every function it is asked for is looked up and checked
 * when it is opened, so building needs neither the headers nor libmosquitto-dev, and a machine
 * without the library runs everything but MQTT. Swift sees only the `cmosquitto_*` names; each
 * forwards to the libmosquitto function of the same name and has its meaning
 * (https://mosquitto.org/api/files/mosquitto-h.html), with the differences each one states.
 *
 * A client's callbacks are plain C functions taking the `context` given when it was made; they
 * are called on whichever thread runs cmosquitto_loop (and cmosquitto_connect_async), one at a
 * time, never from the other calls below.
 */
#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H

#include <stdbool.h>
#include <stddef.h>

/* The file opened by default: the soname of libmosquitto 1.x and 2.x alike. */
#define CMOSQUITTO_LIBRARY_FILE "libmosquitto.so.1"
/* Room for the reason the library could not be opened. */
#define CMOSQUITTO_REASON_SIZE 512

/* enum mosq_err_t: the results of the calls below (and the `rc` of the disconnect callback). */
#define CMOSQUITTO_ERR_SUCCESS 0
#define CMOSQUITTO_ERR_NOMEM 1
#define CMOSQUITTO_ERR_PROTOCOL 2
#define CMOSQUITTO_ERR_INVAL 3
#define CMOSQUITTO_ERR_NO_CONN 4
#define CMOSQUITTO_ERR_CONN_REFUSED 5
#define CMOSQUITTO_ERR_NOT_FOUND 6
#define CMOSQUITTO_ERR_CONN_LOST 7
#define CMOSQUITTO_ERR_TLS 8
#define CMOSQUITTO_ERR_PAYLOAD_SIZE 9
#define CMOSQUITTO_ERR_NOT_SUPPORTED 10
#define CMOSQUITTO_ERR_AUTH 11
#define CMOSQUITTO_ERR_ACL_DENIED 12
#define CMOSQUITTO_ERR_UNKNOWN 13
#define CMOSQUITTO_ERR_ERRNO 14
#define CMOSQUITTO_ERR_EAI 15
#define CMOSQUITTO_ERR_MALFORMED_UTF8 18
#define CMOSQUITTO_ERR_KEEPALIVE 19
#define CMOSQUITTO_ERR_TLS_HANDSHAKE 23

/* enum mosq_opt_t, the options cmosquitto_int_option sets. */
#define CMOSQUITTO_OPT_PROTOCOL_VERSION 1
#define CMOSQUITTO_OPT_SEND_MAXIMUM 5
#define CMOSQUITTO_OPT_TLS_USE_OS_CERTS 13

/* MQTT_PROTOCOL_V311, for CMOSQUITTO_OPT_PROTOCOL_VERSION. */
#define CMOSQUITTO_PROTOCOL_V311 4
/* OpenSSL's SSL_VERIFY_PEER, for cmosquitto_tls_opts_set. */
#define CMOSQUITTO_SSL_VERIFY_PEER 1

/* Log levels (MOSQ_LOG_*): only these two reach a client's log callback. */
#define CMOSQUITTO_LOG_WARNING 0x04
#define CMOSQUITTO_LOG_ERR 0x08

/* The session-present bit of a CONNACK's flags. */
#define CMOSQUITTO_CONNACK_SESSION_PRESENT 0x01

/* libmosquitto opened and bound; never closed. */
typedef struct cmosquitto_library cmosquitto_library;
/* One client (struct mosquitto) with its callbacks. */
typedef struct cmosquitto_client cmosquitto_client;

/* A client's callbacks; every one must be set. `context` is the client's. */
typedef struct {
    /* A CONNACK arrived: `code` 0 is accepted, else the broker's refusal (cmosquitto_connack_string);
     * `flags` has CMOSQUITTO_CONNACK_SESSION_PRESENT. */
    void (*connected)(void *context, int code, int flags);
    /* The connection ended: `rc` 0 after cmosquitto_disconnect, else a CMOSQUITTO_ERR_* (for
     * CMOSQUITTO_ERR_ERRNO, `error_number` is errno as the library left it). */
    void (*disconnected)(void *context, int rc, int error_number);
    /* The broker acknowledged message `mid`: PUBACK for QoS 1, PUBCOMP for QoS 2. */
    void (*published)(void *context, int mid);
    /* A message arrived. The pointers are valid only during the call. */
    void (*message)(void *context, const char *topic, const void *payload, int payload_length, int qos, bool retained);
    /* A SUBACK arrived: one granted QoS per filter (0x80: refused). */
    void (*subscribed)(void *context, int mid, int granted_count, const int *granted);
    /* The library logged a warning or an error (the reason of a TLS failure is only said here). */
    void (*log)(void *context, int level, const char *text);
} cmosquitto_callbacks;

/*
 * Opens `file` (CMOSQUITTO_LIBRARY_FILE, unless a test names another), binds every function the
 * calls below use and calls mosquitto_lib_init. Returns NULL with `reason` saying why: dlopen's
 * message, or "<file> has no function <name>", or lib_init's failure. Each successful call opens
 * the file again (dlopen counts) and makes a new library: callers open it once per process.
 * Not thread-safe (mosquitto_lib_init is not).
 */
const cmosquitto_library *cmosquitto_library_open(const char *file, char *reason, size_t reason_size);

/* mosquitto_lib_version: the version number, and its parts. */
int cmosquitto_lib_version(const cmosquitto_library *lib, int *major, int *minor, int *revision);
/* mosquitto_strerror: text for a CMOSQUITTO_ERR_* (static; never NULL). For CMOSQUITTO_ERR_ERRNO
 * it is strerror(errno) of the calling thread: callers should word that one themselves. */
const char *cmosquitto_strerror(const cmosquitto_library *lib, int rc);
/* mosquitto_connack_string: text for a CONNACK refusal code (static; never NULL). */
const char *cmosquitto_connack_string(const cmosquitto_library *lib, int code);

/*
 * mosquitto_new with `clean_session` and the callbacks, set before it is returned, and the
 * library told its calls come from several threads (mosquitto_threaded_set). Returns NULL with
 * errno set (ENOMEM, or EINVAL for an id that clean_session false needs and is missing).
 */
cmosquitto_client *cmosquitto_client_new(const cmosquitto_library *lib, const char *id, bool clean_session,
                                         const cmosquitto_callbacks *callbacks, void *context);
/* mosquitto_destroy: closes the socket, frees queued messages; no callback is called after it. */
void cmosquitto_client_destroy(cmosquitto_client *client);

int cmosquitto_int_option(cmosquitto_client *client, int option, int value);
int cmosquitto_username_pw_set(cmosquitto_client *client, const char *username, const char *password);
int cmosquitto_will_set(cmosquitto_client *client, const char *topic, int payload_length, const void *payload,
                        int qos, bool retain);
/* mosquitto_tls_set without capath, and with a key-password callback that has no password: an
 * encrypted key fails to load instead of OpenSSL asking for its password on the terminal. */
int cmosquitto_tls_set(cmosquitto_client *client, const char *ca_file, const char *cert_file, const char *key_file);
int cmosquitto_tls_opts_set(cmosquitto_client *client, int cert_reqs, const char *tls_version, const char *ciphers);

/* mosquitto_connect_async. `*error_number` is errno after the call (for CMOSQUITTO_ERR_ERRNO). */
int cmosquitto_connect_async(cmosquitto_client *client, const char *host, int port, int keepalive,
                             int *error_number);
int cmosquitto_disconnect(cmosquitto_client *client);
/* mosquitto_loop (max_packets 1, which 2.x ignores). `*error_number` as above. */
int cmosquitto_loop(cmosquitto_client *client, int timeout_ms, int *error_number);
/* mosquitto_socket: the connection's descriptor, or -1. */
int cmosquitto_socket(cmosquitto_client *client);

int cmosquitto_publish(cmosquitto_client *client, int *mid, const char *topic, int payload_length,
                       const void *payload, int qos, bool retain);
int cmosquitto_subscribe(cmosquitto_client *client, int *mid, const char *filter, int qos);

#endif /* CMOSQUITTO_H */
