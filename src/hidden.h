/* hidden.h: hidden text, found and revealed. Text a model reads but a person
 * does not see: bidi overrides, embeddings, isolates and marks (Trojan
 * Source), zero-width characters, Unicode tag characters U+E0000..U+E007F
 * that smuggle ASCII ("ASCII smuggling"), runs of variation selectors that
 * smuggle bytes after an emoji ("emoji smuggling"), Hangul fillers, Khmer
 * inherent vowels, line and paragraph separators and other invisible format
 * characters. A scan counts them (done once per piece at load: PIECE_HIDDEN),
 * a reveal renders them as visible markers («RLO», «ZWSP», «TAG: the
 * decoded text»), and the report's hidden_text section lists, per piece,
 * each line that holds any, revealed.
 * A ZWJ inside an emoji sequence (👩‍💻) is visible rendering, not hidden. */
#ifndef CTXSCOPE_HIDDEN_H
#define CTXSCOPE_HIDDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct emitter;
struct source;
struct strbuf;

/* What a hidden character is. X(enum, name in reports) */
#define HIDDEN_CLASSES(X)            \
	X(HIDDEN_BIDI, "bidi")       \
	X(HIDDEN_ZERO_WIDTH, "zero_width") \
	X(HIDDEN_TAG, "tag")         \
	X(HIDDEN_FORMAT, "format")   \
	X(HIDDEN_VARIATION, "variation_selectors")

enum hidden_class {
	HIDDEN_NONE = -1, /* not hidden */
#define HIDDEN_X_ENUM(e, name) e,
	HIDDEN_CLASSES(HIDDEN_X_ENUM)
#undef HIDDEN_X_ENUM
	HIDDEN_COUNT
};

/* Counts of hidden characters (code points) by class. */
struct hidden_summary {
	size_t count[HIDDEN_COUNT];
	size_t total;
	size_t lines; /* lines holding at least one */
};

/* "bidi", "zero_width", ... ("" for none). Never NULL. */
const char *hidden_class_name(int cls);

/* The class of cp given its neighbours (prev/next: the code points before
 * and after it, 0 at an end; they only matter for ZWJ in emoji and for
 * variation selectors, hidden only in a run of them). */
enum hidden_class hidden_classify(int32_t prev, int32_t cp, int32_t next);

/* The short name shown in a marker: "RLO", "ZWSP", "LRI"...; "U+XXXX"
 * forms go to buf when the character has no short name. Never NULL. */
const char *hidden_name(int32_t cp, char buf[12]);

/* Counts the hidden characters of s[0..n) into *out (may be NULL).
 * Returns whether there is any. Pure ASCII is skipped at memchr speed. */
bool hidden_scan(const char *s, size_t n, struct hidden_summary *out);

/* Appends s[0..n) to out with every hidden character replaced by a visible
 * marker: «RLO» for one, «ZWSP×3» for a run of the same, a run of tag
 * characters as «TAG: text» with the ASCII they encode, and a run of
 * variation selectors as «VS: text» with the bytes they encode (U+FE00..FE0F
 * bytes 0..15, U+E0100..E01EF bytes 16..255) (ascii: <<RLO>>, <<TAG: text>>). Everything else is copied as is: sanitize the result
 * (utf8_sanitize / utf8_fit) before it reaches a terminal.
 * Returns false when out ran out of memory. */
bool hidden_reveal(struct strbuf *out, const char *s, size_t n, bool ascii);

/* Appends the ASCII that the tag characters of s[0..n) spell (runs joined
 * with a space; other characters skipped). False on out of memory. */
bool hidden_decode_tags(struct strbuf *out, const char *s, size_t n);
/* The same for the bytes that runs of variation selectors encode. */
bool hidden_decode_selectors(struct strbuf *out, const char *s, size_t n);

#define HIDDEN_REPORT_MAX_LINES 20    /* lines listed per piece: a watermarked file would flood the report */
#define HIDDEN_REPORT_LINE_COLUMNS 160 /* a revealed line is cut to this many columns */

/* Writes the report's hidden_text section value: a list, one entry per
 * piece with hidden text in its text or its id (id, the id revealed when
 * it hides something, counts per class, tag text decoded, and the lines
 * holding any, revealed). Emits an empty list when none. */
void hidden_report(const struct source *src, struct emitter *em);

/* Whether any piece of src holds hidden text (PIECE_HIDDEN) or has an id
 * that does. */
bool hidden_any(const struct source *src);

#endif
