/*
 * The part of libmosquitto's own header CMosquitto needs, written out so that building needs no
 * <mosquitto.h>: the opaque client, the message a message callback gets, and the signatures
 * it binds.
 *
 * These are libmosquitto's ABI (soname libmosquitto.so.1), as declared by mosquitto.h 2.0.11;
 * functions that exist since 1.x kept their signatures, and struct mosquitto_message has not
 * changed since 1.0.
 */
#ifndef CMOSQUITTO_INTERNAL_H
#define CMOSQUITTO_INTERNAL_H

#include "cmosquitto.h"

struct mosquitto;

struct mosquitto_message {
    int mid;
    char *topic;
    void *payload;
    int payloadlen;
    int qos;
    bool retain;
};

struct cmosquitto_library {
    int (*lib_version)(int *major, int *minor, int *revision);
    int (*lib_init)(void);
    const char *(*strerror)(int mosq_errno);
    const char *(*connack_string)(int connack_code);
    struct mosquitto *(*new)(const char *id, bool clean_session, void *obj);
    void (*destroy)(struct mosquitto *mosq);
    int (*threaded_set)(struct mosquitto *mosq, bool threaded);
    /* The option is enum mosq_opt_t: an int-sized enum on every ABI Linux uses. */
    int (*int_option)(struct mosquitto *mosq, int option, int value);
    int (*username_pw_set)(struct mosquitto *mosq, const char *username, const char *password);
    int (*will_set)(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos,
                    bool retain);
    int (*tls_set)(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile,
                   const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata));
    int (*tls_opts_set)(struct mosquitto *mosq, int cert_reqs, const char *tls_version, const char *ciphers);
    int (*connect_async)(struct mosquitto *mosq, const char *host, int port, int keepalive);
    int (*disconnect)(struct mosquitto *mosq);
    int (*loop)(struct mosquitto *mosq, int timeout, int max_packets);
    int (*socket)(struct mosquitto *mosq);
    int (*publish)(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload,
                   int qos, bool retain);
    int (*subscribe)(struct mosquitto *mosq, int *mid, const char *sub, int qos);
    void (*connect_with_flags_callback_set)(struct mosquitto *mosq,
                                            void (*on_connect)(struct mosquitto *, void *, int, int));
    void (*disconnect_callback_set)(struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int));
    void (*publish_callback_set)(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int));
    void (*message_callback_set)(struct mosquitto *mosq,
                                 void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *));
    void (*subscribe_callback_set)(struct mosquitto *mosq,
                                   void (*on_subscribe)(struct mosquitto *, void *, int, int, const int *));
    void (*log_callback_set)(struct mosquitto *mosq, void (*on_log)(struct mosquitto *, void *, int, const char *));
};

struct cmosquitto_client {
    const struct cmosquitto_library *lib;
    struct mosquitto *mosq;
    cmosquitto_callbacks callbacks;
    void *context;
};

#endif /* CMOSQUITTO_INTERNAL_H */
