/* hidden.h: hidden text, found and revealed. Text a model reads but a person
 * does not see: bidi overrides, embeddings, isolates and marks (Trojan
 * Source), zero-width characters, Unicode tag characters U+E0000..U+E007F
 * that smuggle ASCII ("ASCII smuggling"), runs of variation selectors that
 * smuggle bytes after an emoji ("emoji smuggling"), Hangul fillers, Khmer
 * inherent vowels, line and paragraph separators and other invisible format
 * characters. A scan counts them (done once per piece at load: PIECE_HIDDEN),
 * a reveal renders them as visible markers («RLO», «ZWSP», «TAG: the
 * decoded text»); the report's hidden_text section (hidden_report.h)
 * lists, per piece, each line that holds any, revealed.
 * A ZWJ inside an emoji sequence (👩‍💻) is visible rendering, not hidden. */
#ifndef CTXSCOPE_HIDDEN_H
#define CTXSCOPE_HIDDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Counts the hidden characters of s[0..n) into *out (may be NULL: then it
 * stops at the first one and leaves the lines uncounted). Returns whether
 * there is any. Pure ASCII is skipped eight bytes at a time. */
bool hidden_scan(const char *s, size_t n, struct hidden_summary *out);

/* What a piece of text's load counts of it, in one pass over its ASCII
 * (most text) instead of three: its code points (utf8_count_code_points),
 * its lines (utf8_count_lines) and whether it holds hidden text
 * (hidden_scan(s, n, NULL)); each the same answer as those. */
struct text_measure {
	size_t code_points, lines;
	bool hidden;
};
void hidden_measure(const char *s, size_t n, struct text_measure *out);

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

#endif
