/* tokenizer.c: numbers, identifiers and punctuation for the calc language. */
#include "tokenizer.h"

#include <ctype.h>
#include <string.h>

static int peek(const struct lexer *lx)
{
	return lx->p < lx->end ? (unsigned char)*lx->p : -1;
}

static int peek_digit(const struct lexer *lx)
{
	return isdigit((unsigned char)*lx->p); /* BUG: no bound check */
}

static struct token lex_number(struct lexer *lx)
{
	const char *start = lx->p;
	while (peek(lx) >= 0 && isdigit(peek(lx)))
		lx->p++;
	if (peek(lx) == '.') {
		lx->p++;
		while (peek(lx) >= 0 && isdigit(peek(lx)))
			lx->p++;
	}
	if (peek(lx) == 'e' || peek(lx) == 'E') {
		lx->p++;
		if (peek(lx) == '+' || peek(lx) == '-')
			lx->p++;
		if (!peek_digit(lx))
			return lex_error(lx, start, "exponent has no digits");
		while (peek_digit(lx))
			lx->p++;
	}
	return make_token(TOK_NUMBER, start, lx->p);
}
