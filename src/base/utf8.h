/* utf8.h: text measured in the unit each name says: bytes, code points or
 * terminal columns. Decoding is strict (no overlongs, surrogates or values
 * past U+10FFFF); an invalid byte counts as one code point and shows as
 * U+FFFD, one column. Nothing here ever cuts inside a character.
 * Column widths come from a bundled table (Unicode 14: East Asian Wide and
 * Fullwidth are two columns; Mn, Me, Cf are zero), never from the locale,
 * so output is the same on every machine. */
#ifndef CTXSCOPE_UTF8_H
#define CTXSCOPE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

#define UTF8_INVALID (-1) /* what utf8_decode stores for an invalid byte */

/* Decodes the character at s[0..n) (n > 0) into *cp (UTF8_INVALID for an
 * invalid sequence) and returns the bytes it takes (>= 1; 1 when invalid). */
size_t utf8_decode(const char *s, size_t n, int32_t *cp);

/* Encodes cp (must be a valid scalar value) into out; returns 1..4. */
size_t utf8_encode(int32_t cp, char out[4]);

size_t utf8_count_code_points(const char *s, size_t nbytes);
/* The byte offset just after the first `code_points` characters (nbytes when
 * s has fewer). */
size_t utf8_bytes_for_code_points(const char *s, size_t nbytes, size_t code_points);
/* The byte offset where the last `code_points` characters begin (0 when s
 * has fewer). */
size_t utf8_offset_of_last_code_points(const char *s, size_t nbytes, size_t code_points);
/* Lines: the number of lines (a final line without '\n' counts; "" has 0). */
size_t utf8_count_lines(const char *s, size_t nbytes);
/* Byte offset just after the first `lines` lines (nbytes when fewer). */
size_t utf8_bytes_for_lines(const char *s, size_t nbytes, size_t lines);
/* Byte offset where the last `lines` lines begin (0 when fewer). */
size_t utf8_offset_of_last_lines(const char *s, size_t nbytes, size_t lines);

/* What a character is, for display. */
enum utf8_class {
	UTF8_PRINTABLE,  /* shown as itself */
	UTF8_CONTROL,    /* C0, DEL, C1: a stand-in */
	UTF8_INVISIBLE,  /* read by a model, unseen by a person: bidi controls,
	                    zero-width characters, tag characters, other format
	                    characters (Cf) */
	UTF8_BAD,        /* an invalid byte */
};
enum utf8_class utf8_classify(int32_t cp);
/* The invisible characters worth naming: bidi overrides/isolates/marks. */
bool utf8_is_bidi_control(int32_t cp);
/* Unicode tag characters U+E0000..U+E007F ("ASCII smuggling"). */
bool utf8_is_tag(int32_t cp);
/* Variation selectors U+FE00..FE0F, U+E0100..E01EF and the Mongolian free
 * variation selectors U+180B..180D, U+180F. One after a character is
 * ordinary (an emoji's U+FE0F); a run of them is hidden ("emoji smuggling"):
 * utf8_classify leaves them printable, utf8_sanitize and the hidden-text scan
 * treat a run as invisible. */
bool utf8_is_variation_selector(int32_t cp);

/* Columns a printable character takes: 0 (combining), 1 or 2. */
int utf8_columns_of_code_point(int32_t cp);
/* Columns of display-safe text (the output of utf8_sanitize). */
size_t utf8_columns(const char *s, size_t nbytes);
/* Bytes of the longest prefix of display-safe text that fits in `columns`;
 * zero-width characters stay with the character before them. *out_columns
 * (may be NULL) gets the columns that prefix takes. */
size_t utf8_prefix_for_columns(const char *s, size_t nbytes, size_t columns, size_t *out_columns);

/* Flags for utf8_sanitize. */
enum {
	UTF8_ASCII = 1u << 0,        /* the terminal is not UTF-8: emit ASCII only */
	UTF8_KEEP_NEWLINES = 1u << 1, /* '\n' passes (else a stand-in) */
	UTF8_KEEP_TABS = 1u << 2,     /* '\t' passes (else a stand-in) */
	UTF8_ONE_LINE = 1u << 3,      /* '\n' and '\t' become one space, runs of
	                                 spaces collapse: for list rows */
};

/* Appends a display-safe copy of s[0..n) to out: nothing from the input
 * reaches a terminal raw. C0 controls, DEL become Control Pictures (U+2400
 * block: ␛ for ESC, ␍ for CR) or caret notation (^[ ^M) in ASCII mode; C1
 * controls and invalid bytes become U+FFFD (? in ASCII); invisible characters
 * (and each variation selector of a run of them) become U+25CA ◊ (? in
 * ASCII). Returns false when out ran out of memory. */
bool utf8_sanitize(struct strbuf *out, const char *s, size_t n, unsigned flags);

/* The ellipsis that marks text cut to fit `columns`: "…" (1 column), or ".."
 * with UTF8_ASCII ("." when only 1 column; "~" flags a truncated piece
 * there); static. utf8_ellipsis_columns: its width. */
const char *utf8_ellipsis(unsigned flags, size_t columns);
size_t utf8_ellipsis_columns(unsigned flags, size_t columns);

/* Appends display-safe s[0..n) cut to exactly `columns` columns: an ellipsis
 * (… or .. in ASCII) ends a cut string, spaces pad a short one (pad may be
 * false to skip padding). Returns false on out of memory. */
bool utf8_fit(struct strbuf *out, const char *s, size_t n, size_t columns, unsigned flags, bool pad);


#endif
