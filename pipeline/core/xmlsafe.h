/* xmlsafe: how gpudse reads the XML files people write (campaigns, split
 * studies): libxml2 with no network, no DTD loading and no entity
 * expansion, a DOCTYPE refused outright, the first parser error reported as
 * FILE:LINE, and RELAX NG validation against a schema in templates/. */
#ifndef GPUDSE_XMLSAFE_H
#define GPUDSE_XMLSAFE_H

#include <libxml/tree.h>
#include "util.h"

/* Parse path (util_read_input: a regular file of at most UTIL_INPUT_MAX
 * bytes); what names the kind of file in messages ("campaign"). A DOCTYPE
 * stops the parser where it starts, before any entity is declared. */
int xs_read(const char *path, const char *what, xmlDocPtr *out, gd_err *err);

/* The same on the bytes of path already read (len of buf). */
int xs_read_buf(const char *path, const char *buf, size_t len,
                const char *what, xmlDocPtr *out, gd_err *err);

/* Validate doc against DATADIR/schema (e.g. "campaign.rng"). */
int xs_validate(const char *path, xmlDocPtr doc, const char *schema,
                const char *what, gd_err *err);

#endif
