/* test_tokenizer.c: number forms, including the exponent edge cases. */
#include "tokenizer.h"
#include "check.h"

static void test_exponent_forms(void)
{
	CHECK_TOKEN("1e10", TOK_NUMBER, "1e10");
	CHECK_TOKEN("1E-3", TOK_NUMBER, "1E-3");
	CHECK_TOKEN("2.5e+7", TOK_NUMBER, "2.5e+7");
}

static void test_exponent_without_digits(void)
{
	/* issue 212: must be an error, not a read past the end */
	CHECK_ERROR("1e", "exponent has no digits", 1, 3);
	CHECK_ERROR("1e+", "exponent has no digits", 1, 4);
}
