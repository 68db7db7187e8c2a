/*
 * cmosquitto.c — opening libmosquitto.so.1 at run time, and the calls of cmosquitto.h, each
 * forwarded to the function of the same name bound from it. The library's callbacks land in the
 * trampolines below, which hand them on to the client's own callbacks with its context.
 */
#include "cmosquitto_internal.h"

#include <cdynamic_library.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMOSQUITTO_BIND(member)                                                                              \
    cdynamic_library_bind(handle, file, "function", "mosquitto_" #member, &lib->member, sizeof(lib->member), reason,     \
                          reason_size)

const cmosquitto_library *cmosquitto_library_open(const char *file, char *reason, size_t reason_size)
{
    /* RTLD_LOCAL: libmosquitto's symbols stay out of the global namespace. */
    void *handle = cdynamic_library_open(file, RTLD_NOW | RTLD_LOCAL, reason, reason_size);
    if (!handle)
        return NULL;
    struct cmosquitto_library *lib = (struct cmosquitto_library *)calloc(1, sizeof(*lib));
    if (!lib) {
        snprintf(reason, reason_size, "out of memory opening %s", file);
        dlclose(handle);
        return NULL;
    }
    bool bound = CMOSQUITTO_BIND(lib_version) && CMOSQUITTO_BIND(lib_init) && CMOSQUITTO_BIND(strerror)
                 && CMOSQUITTO_BIND(connack_string) && CMOSQUITTO_BIND(new) && CMOSQUITTO_BIND(destroy)
                 && CMOSQUITTO_BIND(threaded_set) && CMOSQUITTO_BIND(int_option) && CMOSQUITTO_BIND(username_pw_set)
                 && CMOSQUITTO_BIND(will_set) && CMOSQUITTO_BIND(tls_set) && CMOSQUITTO_BIND(tls_opts_set)
                 && CMOSQUITTO_BIND(connect_async) && CMOSQUITTO_BIND(disconnect) && CMOSQUITTO_BIND(loop)
                 && CMOSQUITTO_BIND(socket) && CMOSQUITTO_BIND(publish) && CMOSQUITTO_BIND(subscribe)
                 && CMOSQUITTO_BIND(connect_with_flags_callback_set) && CMOSQUITTO_BIND(disconnect_callback_set)
                 && CMOSQUITTO_BIND(publish_callback_set) && CMOSQUITTO_BIND(message_callback_set)
                 && CMOSQUITTO_BIND(subscribe_callback_set) && CMOSQUITTO_BIND(log_callback_set);
    if (!bound) {
        free(lib);
        dlclose(handle);
        return NULL;
    }
    int rc = lib->lib_init();
    if (rc != CMOSQUITTO_ERR_SUCCESS) {
        snprintf(reason, reason_size, "%s: mosquitto_lib_init failed: %s", file, lib->strerror(rc));
        free(lib);
        dlclose(handle);
        return NULL;
    }
    /* The handle is never closed, nor mosquitto_lib_cleanup called: clients may live until the
     * process ends, and lib_init's OpenSSL set-up is process-wide. */
    return lib;
}

int cmosquitto_lib_version(const cmosquitto_library *lib, int *major, int *minor, int *revision)
{
    return lib->lib_version(major, minor, revision);
}

const char *cmosquitto_strerror(const cmosquitto_library *lib, int rc)
{
    const char *text = lib->strerror(rc);
    return text ? text : "unknown error";
}

const char *cmosquitto_connack_string(const cmosquitto_library *lib, int code)
{
    const char *text = lib->connack_string(code);
    return text ? text : "unknown refusal";
}

/* ---- callbacks: libmosquitto's signatures in, the client's out ------------------------------ */

static void cmosquitto_on_connect(struct mosquitto *mosq, void *obj, int code, int flags)
{
    (void)mosq;
    cmosquitto_client *client = (cmosquitto_client *)obj;
    client->callbacks.connected(client->context, code, flags);
}

static void cmosquitto_on_disconnect(struct mosquitto *mosq, void *obj, int rc)
{
    (void)mosq;
    int error_number = errno;
    cmosquitto_client *client = (cmosquitto_client *)obj;
    client->callbacks.disconnected(client->context, rc, error_number);
}

static void cmosquitto_on_publish(struct mosquitto *mosq, void *obj, int mid)
{
    (void)mosq;
    cmosquitto_client *client = (cmosquitto_client *)obj;
    client->callbacks.published(client->context, mid);
}

static void cmosquitto_on_message(struct mosquitto *mosq, void *obj, const struct mosquitto_message *message)
{
    (void)mosq;
    cmosquitto_client *client = (cmosquitto_client *)obj;
    client->callbacks.message(client->context, message->topic, message->payload, message->payloadlen, message->qos,
                              message->retain);
}

static void cmosquitto_on_subscribe(struct mosquitto *mosq, void *obj, int mid, int granted_count, const int *granted)
{
    (void)mosq;
    cmosquitto_client *client = (cmosquitto_client *)obj;
    client->callbacks.subscribed(client->context, mid, granted_count, granted);
}

static void cmosquitto_on_log(struct mosquitto *mosq, void *obj, int level, const char *text)
{
    (void)mosq;
    /* The library logs every packet at debug level, on whichever thread sent it and sometimes
     * holding its own locks: only warnings and errors go on, and the client's log callback must
     * take no lock that is held while calling the library. */
    if (!(level & (CMOSQUITTO_LOG_WARNING | CMOSQUITTO_LOG_ERR)) || !text)
        return;
    cmosquitto_client *client = (cmosquitto_client *)obj;
    client->callbacks.log(client->context, level, text);
}

/* OpenSSL asks for an encrypted key's password through this: there is none, so loading such a
 * key fails (a TLS error) rather than a daemon waiting for someone to type it. */
static int cmosquitto_no_key_password(char *buf, int size, int rwflag, void *userdata)
{
    (void)rwflag;
    (void)userdata;
    if (buf && size > 0)
        buf[0] = '\0';
    return 0;
}

/* ---- clients ---------------------------------------------------------------------------------- */

cmosquitto_client *cmosquitto_client_new(const cmosquitto_library *lib, const char *id, bool clean_session,
                                         const cmosquitto_callbacks *callbacks, void *context)
{
    if (!callbacks || !callbacks->connected || !callbacks->disconnected || !callbacks->published
        || !callbacks->message || !callbacks->subscribed || !callbacks->log) {
        errno = EINVAL;
        return NULL;
    }
    cmosquitto_client *client = (cmosquitto_client *)calloc(1, sizeof(*client));
    if (!client) {
        errno = ENOMEM;
        return NULL;
    }
    client->lib = lib;
    client->callbacks = *callbacks;
    client->context = context;
    client->mosq = lib->new(id, clean_session, client);
    if (!client->mosq) {
        int saved = errno;
        free(client);
        errno = saved ? saved : ENOMEM;
        return NULL;
    }
    lib->threaded_set(client->mosq, true);
    lib->connect_with_flags_callback_set(client->mosq, cmosquitto_on_connect);
    lib->disconnect_callback_set(client->mosq, cmosquitto_on_disconnect);
    lib->publish_callback_set(client->mosq, cmosquitto_on_publish);
    lib->message_callback_set(client->mosq, cmosquitto_on_message);
    lib->subscribe_callback_set(client->mosq, cmosquitto_on_subscribe);
    lib->log_callback_set(client->mosq, cmosquitto_on_log);
    return client;
}

void cmosquitto_client_destroy(cmosquitto_client *client)
{
    if (!client)
        return;
    client->lib->destroy(client->mosq);
    free(client);
}

int cmosquitto_int_option(cmosquitto_client *client, int option, int value)
{
    return client->lib->int_option(client->mosq, option, value);
}

int cmosquitto_username_pw_set(cmosquitto_client *client, const char *username, const char *password)
{
    return client->lib->username_pw_set(client->mosq, username, password);
}

int cmosquitto_will_set(cmosquitto_client *client, const char *topic, int payload_length, const void *payload,
                        int qos, bool retain)
{
    return client->lib->will_set(client->mosq, topic, payload_length, payload, qos, retain);
}

int cmosquitto_tls_set(cmosquitto_client *client, const char *ca_file, const char *cert_file, const char *key_file)
{
    return client->lib->tls_set(client->mosq, ca_file, NULL, cert_file, key_file, cmosquitto_no_key_password);
}

int cmosquitto_tls_opts_set(cmosquitto_client *client, int cert_reqs, const char *tls_version, const char *ciphers)
{
    return client->lib->tls_opts_set(client->mosq, cert_reqs, tls_version, ciphers);
}

int cmosquitto_connect_async(cmosquitto_client *client, const char *host, int port, int keepalive,
                             int *error_number)
{
    errno = 0;
    int rc = client->lib->connect_async(client->mosq, host, port, keepalive);
    if (error_number)
        *error_number = errno;
    return rc;
}

int cmosquitto_disconnect(cmosquitto_client *client) { return client->lib->disconnect(client->mosq); }

int cmosquitto_loop(cmosquitto_client *client, int timeout_ms, int *error_number)
{
    errno = 0;
    int rc = client->lib->loop(client->mosq, timeout_ms, 1);
    if (error_number)
        *error_number = errno;
    return rc;
}

int cmosquitto_socket(cmosquitto_client *client) { return client->lib->socket(client->mosq); }

int cmosquitto_publish(cmosquitto_client *client, int *mid, const char *topic, int payload_length,
                       const void *payload, int qos, bool retain)
{
    return client->lib->publish(client->mosq, mid, topic, payload_length, payload, qos, retain);
}

int cmosquitto_subscribe(cmosquitto_client *client, int *mid, const char *filter, int qos)
{
    return client->lib->subscribe(client->mosq, mid, filter, qos);
}
