/* dump.h: the assembled prompt as the model would receive it. A document is
 * its text; a messages array is JSON: {"system": ..., "messages": [{"role",
 * "content"}]}. By default control and invisible characters in a document
 * become visible stand-ins (utf8.h); `raw` gives the exact bytes, for a file
 * or a pipe. JSON output is always escaped, so raw changes nothing there. */
#ifndef CTXSCOPE_DUMP_H
#define CTXSCOPE_DUMP_H

#include <stdbool.h>

struct assembly;
struct strbuf;

/* Writes a's prompt into out. ascii: stand-ins in ASCII (non-UTF-8
 * terminal). CS_OK or CS_ENOMEM. */
int dump_write(const struct assembly *a, bool raw, bool ascii, struct strbuf *out);

/* True when the system would never send a's prompt as it is: it refuses
 * (stopAtLimit over the limit, a system context alone over it, more cache
 * breakpoints than the provider takes) or compacts first (the ledger's
 * broker); why gets the sentence the report gives. */
bool dump_not_sent(const struct assembly *a, struct strbuf *why);

#endif
