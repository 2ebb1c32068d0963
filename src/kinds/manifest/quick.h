/* quick.h (manifest): the quick way to read a manifest, from libyaml's
 * events, without a tree of its entries: a 100k-file manifest is some 900k
 * nodes (half of its load's page faults), kept only for strings to point
 * into. Each entry of `files` is checked by the loader's own rules
 * (manifest_entry_spec, over nodes that live while its events do) and kept
 * as a manifest_entry_spec; the root's other keys and values (protocol,
 * budget, metadata, anything else) are built by the tree's own builder, so
 * the loader reads them as before.
 * A document of another shape is declined, before the loader uses anything
 * of it, and read the tree's way, which says what is wrong word for word:
 * any parse error, an anchor or alias anywhere, a root that is not a
 * mapping, a key of the root that is not a scalar, `files` twice, an entry
 * that is not a mapping (at most 16 keys) of scalar keys (a value that is a
 * list or mapping is passed over: it stands as an empty one, which the
 * loader refuses under a key it reads), an entry the loader's
 * rules refuse, more than MANIFEST_MAX_FILES entries, nesting past half the
 * tree's depth limit, or past its node limit. So a manifest reads the same
 * either way (tests/unit/test_manifest_quick.c, fuzz_load compare them). */
#ifndef CTXSCOPE_MANIFEST_QUICK_H
#define CTXSCOPE_MANIFEST_QUICK_H

#include "manifest.h"
#include "json/yaml_tree.h"

#include <stdbool.h>
#include <stddef.h>

struct manifest_quick {
	struct ytree nodes;                /* the root's nodes but the entries */
	const struct ynode *root;          /* the root mapping; files' value is a list whose nchildren
					    * counts the entries and whose children are NULL */
	struct manifest_entry_spec *specs; /* the entries, in order (cs_malloc'd); paths in `keep` */
	size_t n;
};

/* Reads data[0..len) the quick way into *q: true when taken (free with
 * manifest_quick_fini), false when declined (nothing to free; the paths of
 * entries taken before the decline stay in `keep`, unused). Out of memory
 * declines too: the tree's way then meets it. */
bool manifest_quick_read(const char *data, size_t len, struct arena *keep, struct manifest_quick *q);
void manifest_quick_fini(struct manifest_quick *q);

#endif
