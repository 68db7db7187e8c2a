/*
 * clibxml2.h — the part of libxml2's C API the SCXML loader uses, loaded at run time.
 *
 * Nothing here includes libxml2's headers: libxml2.so.2 (Debian's libxml2) is opened with dlopen
 * and every function below is looked up and checked when it is loaded, so building needs neither
 * the headers nor libxml2-dev, and a program that never reads an SCXML document never needs the
 * library. Swift sees only the `clibxml2_*` names and opaque pointers; the node and attribute
 * fields are read here, in C, from libxml2's public structures (tree.h), which its ABI keeps.
 *
 * Call clibxml2_load first: it must have succeeded before any other function is called.
 */
#ifndef CLIBXML2_H
#define CLIBXML2_H

#include <stddef.h>

/* The file opened: the soname of libxml2's ABI. */
#define CLIBXML2_LIBRARY_FILE "libxml2.so.2"
/* Room for the reason the library could not be loaded, or a document could not be read. */
#define CLIBXML2_REASON_SIZE 512

/* Node kinds (xmlElementType, tree.h) these calls tell apart; the loader names every kind. */
#define CLIBXML2_ELEMENT_NODE 1
#define CLIBXML2_TEXT_NODE 3
#define CLIBXML2_CDATA_SECTION_NODE 4

/* A parsed document, a node of it (an element, text, a comment…) and an attribute. */
typedef struct clibxml2_doc clibxml2_doc;
typedef struct clibxml2_node clibxml2_node;
typedef struct clibxml2_attr clibxml2_attr;

/*
 * Opens CLIBXML2_LIBRARY_FILE and binds every function the calls below need, once per process
 * (later calls return the first one's outcome). Returns 0, or -1 with `reason` saying why
 * (dlopen's message, or the first function the file lacks). Thread-safe.
 */
int clibxml2_load(char *reason, size_t reason_size);

/*
 * Parses `size` bytes at `buffer` (`url` naming them in messages) as UTF-8 whatever the
 * document declares, without touching the network, without printing anything, keeping line
 * numbers past 65535. Returns the document, or NULL with `reason` and `line` (0 when unknown)
 * saying what is malformed and where. Free the document with clibxml2_free_doc.
 */
clibxml2_doc *clibxml2_read_memory(const char *buffer, int size, const char *url, char *reason, size_t reason_size, int *line);
void clibxml2_free_doc(clibxml2_doc *doc);

clibxml2_node *clibxml2_root(clibxml2_doc *doc);
/* The document's own children: its DOCTYPE, comments and processing instructions around the
 * root element, and the root element. */
clibxml2_node *clibxml2_doc_first_child(clibxml2_doc *doc);
/* Children and siblings in document order, every kind of node (NULL at the end). */
clibxml2_node *clibxml2_first_child(clibxml2_node *node);
clibxml2_node *clibxml2_next_sibling(clibxml2_node *node);
int clibxml2_node_type(clibxml2_node *node);
/* The local name; the namespace's URI, or NULL without one. Owned by the document. */
const char *clibxml2_node_name(clibxml2_node *node);
const char *clibxml2_node_namespace(clibxml2_node *node);
long clibxml2_node_line(clibxml2_node *node);
/* The text of a text or CDATA node (NULL for others). Owned by the document. */
const char *clibxml2_node_text(clibxml2_node *node);

clibxml2_attr *clibxml2_first_attribute(clibxml2_node *node);
clibxml2_attr *clibxml2_next_attribute(clibxml2_attr *attribute);
const char *clibxml2_attribute_name(clibxml2_attr *attribute);
const char *clibxml2_attribute_namespace(clibxml2_attr *attribute);
/* The attribute's value as libxml2 holds it: text nodes, and an entity reference node for each
 * entity it names (read with the node calls above). */
clibxml2_node *clibxml2_attribute_first_child(clibxml2_attr *attribute);

#endif /* CLIBXML2_H */
