/*
 * clibxml2.c — opening libxml2.so.2 at run time, once, and the calls of clibxml2.h.
 */
/* RTLD_DEFAULT, RTLD_NOLOAD and RTLD_DEEPBIND are GNU extensions of dlfcn.h. */
#define _GNU_SOURCE
#include "clibxml2_internal.h"

#include <cdynamic_library.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static struct clibxml2_api api;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/* Written once inside load_once, read only after it: pthread_once orders them. */
static int load_result = -1;
static char load_reason[CLIBXML2_REASON_SIZE];

/* Quiet (the loader reports the error itself), offline (a document names no DTD to fetch),
 * with line numbers past 65535 (xmlGetLineNo reads them from elsewhere), and as UTF-8 whatever
 * the document's declaration says (IGNORE_ENC): the loader's check of its bytes before parsing
 * (XMLBounds) sees the markup libxml2 sees. The loader reads files itself, bounded. */
static const int read_options = CLIBXML2_PARSE_NOERROR | CLIBXML2_PARSE_NOWARNING | CLIBXML2_PARSE_NONET | CLIBXML2_PARSE_BIG_LINES
                                | CLIBXML2_PARSE_IGNORE_ENC;
static const char read_encoding[] = "UTF-8";

#define CLIBXML2_BIND(member, symbol)                                                                        \
    cdynamic_library_bind(handle, CLIBXML2_LIBRARY_FILE, "symbol", symbol, &api.member, sizeof(api.member),      \
                          load_reason, sizeof(load_reason))

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CLIBXML2_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CLIBXML2_SANITIZED 1
#endif
#endif

/* Another libxml2 (not CLIBXML2_LIBRARY_FILE) is in the global namespace: Debian sid's
 * Foundation, for one, links libFoundationXML against libxml2.so.16. libxml2's symbols are not
 * versioned, so the calls libxml2.so.2 makes to itself would bind to the global copy's functions,
 * which then write into the other copy's read-only data (a SIGSEGV seen in the aarch64 test run).
 * RTLD_DEEPBIND makes libxml2.so.2 look in itself first. */
static bool clibxml2_other_copy_is_global(void)
{
    void *ours = dlopen(CLIBXML2_LIBRARY_FILE, RTLD_NOW | RTLD_NOLOAD);
    if (ours) {
        dlclose(ours); /* our file is already loaded: its own symbols are the global ones */
        return false;
    }
    return dlsym(RTLD_DEFAULT, "xmlInitParser") != NULL;
}

static void clibxml2_load_once(void)
{
    /* RTLD_LOCAL: libxml2's symbols stay out of the global namespace. */
    int flags = RTLD_NOW | RTLD_LOCAL;
    if (clibxml2_other_copy_is_global()) {
#ifdef CLIBXML2_SANITIZED
        /* The sanitizers' interceptors refuse RTLD_DEEPBIND; without it the two copies clash. */
        snprintf(load_reason, sizeof(load_reason),
                 "another libxml2 is already loaded in this process and %s cannot be kept apart from it in a "
                 "sanitizer build; run without the sanitizer",
                 CLIBXML2_LIBRARY_FILE);
        return;
#else
        flags |= RTLD_DEEPBIND;
#endif
    }
    void *handle = cdynamic_library_open(CLIBXML2_LIBRARY_FILE, flags, load_reason, sizeof(load_reason));
    if (!handle)
        return;
    bool bound = CLIBXML2_BIND(initParser, "xmlInitParser") && CLIBXML2_BIND(readMemory, "xmlReadMemory")
                 && CLIBXML2_BIND(freeDoc, "xmlFreeDoc")
                 && CLIBXML2_BIND(docGetRootElement, "xmlDocGetRootElement") && CLIBXML2_BIND(getLineNo, "xmlGetLineNo")
                 && CLIBXML2_BIND(getLastError, "xmlGetLastError") && CLIBXML2_BIND(resetLastError, "xmlResetLastError");
    if (!bound) {
        memset(&api, 0, sizeof(api));
        dlclose(handle);
        return;
    }
    /* libxml2 asks for this once, before any thread parses. The handle is never closed:
     * documents may live until the process ends. */
    api.initParser();
    load_result = 0;
}

int clibxml2_load(char *reason, size_t reason_size)
{
    pthread_once(&load_once, clibxml2_load_once);
    if (load_result != 0 && reason && reason_size > 0)
        snprintf(reason, reason_size, "%s", load_reason);
    return load_result;
}

/* What the last parse on this thread found wrong, without libxml2's trailing newline. */
static void clibxml2_last_error(char *reason, size_t reason_size, int *line)
{
    const xmlError *error = api.getLastError();
    *line = error ? error->line : 0;
    if (!reason || reason_size == 0) return;
    snprintf(reason, reason_size, "%s", error && error->message ? error->message : "not a well-formed XML document");
    size_t length = strlen(reason);
    while (length > 0 && (reason[length - 1] == '\n' || reason[length - 1] == ' ')) reason[--length] = '\0';
}

clibxml2_doc *clibxml2_read_memory(const char *buffer, int size, const char *url, char *reason, size_t reason_size, int *line)
{
    api.resetLastError();
    xmlDoc *doc = api.readMemory(buffer, size, url, read_encoding, read_options);
    if (!doc) clibxml2_last_error(reason, reason_size, line);
    return (clibxml2_doc *)doc;
}

void clibxml2_free_doc(clibxml2_doc *doc) { api.freeDoc((xmlDoc *)doc); }

clibxml2_node *clibxml2_root(clibxml2_doc *doc) { return (clibxml2_node *)api.docGetRootElement((xmlDoc *)doc); }
/* xmlDoc begins with the fields of xmlNode up to `children`, as every node of the tree does. */
clibxml2_node *clibxml2_doc_first_child(clibxml2_doc *doc) { return (clibxml2_node *)((xmlNode *)doc)->children; }
clibxml2_node *clibxml2_first_child(clibxml2_node *node) { return (clibxml2_node *)((xmlNode *)node)->children; }
clibxml2_node *clibxml2_next_sibling(clibxml2_node *node) { return (clibxml2_node *)((xmlNode *)node)->next; }
int clibxml2_node_type(clibxml2_node *node) { return ((xmlNode *)node)->type; }
const char *clibxml2_node_name(clibxml2_node *node) { return (const char *)((xmlNode *)node)->name; }

const char *clibxml2_node_namespace(clibxml2_node *node)
{
    const xmlNs *ns = ((xmlNode *)node)->ns;
    return ns ? (const char *)ns->href : NULL;
}

long clibxml2_node_line(clibxml2_node *node) { return api.getLineNo((xmlNode *)node); }

const char *clibxml2_node_text(clibxml2_node *node)
{
    xmlNode *raw = (xmlNode *)node;
    if (raw->type != CLIBXML2_TEXT_NODE && raw->type != CLIBXML2_CDATA_SECTION_NODE) return NULL;
    return (const char *)raw->content;
}

clibxml2_attr *clibxml2_first_attribute(clibxml2_node *node)
{
    xmlNode *raw = (xmlNode *)node;
    return raw->type == CLIBXML2_ELEMENT_NODE ? (clibxml2_attr *)raw->properties : NULL;
}

clibxml2_attr *clibxml2_next_attribute(clibxml2_attr *attribute) { return (clibxml2_attr *)((xmlAttr *)attribute)->next; }
const char *clibxml2_attribute_name(clibxml2_attr *attribute) { return (const char *)((xmlAttr *)attribute)->name; }

const char *clibxml2_attribute_namespace(clibxml2_attr *attribute)
{
    const xmlNs *ns = ((xmlAttr *)attribute)->ns;
    return ns ? (const char *)ns->href : NULL;
}

clibxml2_node *clibxml2_attribute_first_child(clibxml2_attr *attribute)
{
    return (clibxml2_node *)((xmlAttr *)attribute)->children;
}
