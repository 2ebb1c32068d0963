/* json/reuse.h: json_doc_parse for many small documents in a row (the lines
 * of a JSON Lines file). Each tree is built in one pool that is kept from
 * document to document (reset, not freed: no allocation per line once it is
 * big enough), and json_doc_parse's checks (nesting depth, \u0000 escapes,
 * keys that appear twice) are made on the tree, and by one quick look at the
 * text for \u0000 and a raw NUL byte (json/lex.h). A document that fails any of them, that cJSON refuses,
 * or that goes on past what cJSON took, is parsed again by json_doc_parse
 * itself, so every error is its own, word for word. */
#ifndef CTXSCOPE_JSON_REUSE_H
#define CTXSCOPE_JSON_REUSE_H

#include "json/doc.h"

struct json_reuse {
	struct json_pool pool; /* json/doc.h's: reset, not freed, between documents */
};
#define JSON_REUSE_INIT { { 0 } }

/* Like json_doc_parse (same results, same errors). On CS_OK the tree lives
 * in r's pool until the next json_reuse_parse or json_reuse_fini; either
 * way json_doc_free(d) stays right (and costs nothing for a reused tree). */
int json_reuse_parse(struct json_reuse *r, struct json_doc *d, const char *data, size_t len, struct cs_error *err);
void json_reuse_fini(struct json_reuse *r);
/* After a json_reuse_parse that gave CS_OK: d's tree is d's own from now
 * on (the pool goes with it, freed by json_doc_free; r starts a new one). */
void json_reuse_keep(struct json_reuse *r, struct json_doc *d);

#endif
