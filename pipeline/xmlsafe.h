/* xmlsafe: how gpudse reads the XML files people write (campaigns, split
 * studies): libxml2 with no network, no DTD loading and no entity
 * expansion, a DOCTYPE refused outright, the first parser error reported as
 * FILE:LINE, and RELAX NG validation against a schema in templates/. */
#ifndef GPUDSE_XMLSAFE_H
#define GPUDSE_XMLSAFE_H

#include <libxml/tree.h>
#include "util.h"

/* Parse path; what names the kind of file in messages ("campaign"). */
int xs_read(const char *path, const char *what, xmlDocPtr *out, gd_err *err);

/* Validate doc against DATADIR/schema (e.g. "campaign.rng"). */
int xs_validate(const char *path, xmlDocPtr doc, const char *schema,
                const char *what, gd_err *err);

#endif
