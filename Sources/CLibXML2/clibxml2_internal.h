/*
 * The part of libxml2's own headers CLibXML2 needs, written out so that building needs no
 * libxml2 headers: the public structures it reads fields of (tree.h, xmlerror.h) and the
 * signatures it binds.
 *
 * These are libxml2 2.x's ABI (soname libxml2.so.2): the leading fields of xmlNode, xmlAttr,
 * xmlNs and xmlError have kept their order and types since 2.0.
 */
#ifndef CLIBXML2_INTERNAL_H
#define CLIBXML2_INTERNAL_H

#include "clibxml2.h"

typedef unsigned char xmlChar;
typedef struct _xmlNode xmlNode;
typedef struct _xmlAttr xmlAttr;
typedef struct _xmlDoc xmlDoc;

typedef struct _xmlNs {
    struct _xmlNs *next;
    int type;
    const xmlChar *href;
    const xmlChar *prefix;
    void *_private;
    xmlDoc *context;
} xmlNs;

struct _xmlNode {
    void *_private;
    int type;
    const xmlChar *name;
    struct _xmlNode *children;
    struct _xmlNode *last;
    struct _xmlNode *parent;
    struct _xmlNode *next;
    struct _xmlNode *prev;
    xmlDoc *doc;
    xmlNs *ns;
    xmlChar *content;
    struct _xmlAttr *properties;
    xmlNs *nsDef;
    void *psvi;
    unsigned short line;
    unsigned short extra;
};

struct _xmlAttr {
    void *_private;
    int type;
    const xmlChar *name;
    struct _xmlNode *children;
    struct _xmlNode *last;
    struct _xmlNode *parent;
    struct _xmlAttr *next;
    struct _xmlAttr *prev;
    xmlDoc *doc;
    xmlNs *ns;
    int atype;
    void *psvi;
};

typedef struct _xmlError {
    int domain;
    int code;
    char *message;
    int level;
    char *file;
    int line;
    char *str1;
    char *str2;
    char *str3;
    int int1;
    int int2;
    void *ctxt;
    void *node;
} xmlError;

/* xmlParserOption values (parser.h). */
#define CLIBXML2_PARSE_NOERROR (1 << 5)
#define CLIBXML2_PARSE_NOWARNING (1 << 6)
#define CLIBXML2_PARSE_NONET (1 << 11)
#define CLIBXML2_PARSE_IGNORE_ENC (1 << 21)
#define CLIBXML2_PARSE_BIG_LINES (1 << 22)

struct clibxml2_api {
    void (*initParser)(void);
    xmlDoc *(*readMemory)(const char *buffer, int size, const char *url, const char *encoding, int options);
    void (*freeDoc)(xmlDoc *doc);
    xmlNode *(*docGetRootElement)(const xmlDoc *doc);
    long (*getLineNo)(const xmlNode *node);
    const xmlError *(*getLastError)(void);
    void (*resetLastError)(void);
};

#endif /* CLIBXML2_INTERNAL_H */
