/* test_json_getters.c: the lenient getters the tolerant loaders read trees
 * through (json/doc.h): a value of another type, a missing key, a NULL
 * object or a scalar never crash and read as absent; walks and lengths
 * agree; a hand-built tree reads back through the same getters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "json/doc.h"

#include <string.h>

static void types_and_absence(void **state)
{
	(void)state;
	cJSON *t = json_tree_parse_str("{\"s\":\"x\",\"n\":4.5,\"b\":false,\"z\":null,\"a\":[1,\"two\",3],\"o\":{\"k\":1}}");
	assert_non_null(t);
	assert_string_equal(json_opt_string(t, "s"), "x");
	assert_null(json_opt_string(t, "n"));
	assert_null(json_opt_string(t, "missing"));
	assert_null(json_opt_string(NULL, "s"));
	assert_null(json_opt_string(json_member(t, "s"), "s")); /* a scalar holds no members */
	double x = -1;
	assert_true(json_opt_number(t, "n", &x));
	assert_true(x == 4.5);
	assert_false(json_opt_number(t, "s", &x));
	assert_true(x == 4.5);
	bool b = true;
	assert_true(json_opt_bool(t, "b", &b));
	assert_false(b);
	assert_false(json_opt_bool(t, "z", &b));
	assert_true(json_absent(json_member(t, "z")));
	assert_true(json_absent(json_member(t, "nope")));
	assert_false(json_absent(json_member(t, "b")));
	assert_non_null(json_opt_array(t, "a"));
	assert_null(json_opt_array(t, "o"));
	assert_non_null(json_opt_object(t, "o"));
	assert_null(json_opt_object(t, "a"));
	assert_true(json_number_value(json_member(t, "s"), 7) == 7);
	json_tree_free(t);
}

static void walks(void **state)
{
	(void)state;
	cJSON *t = json_tree_parse("[10,\"a\",{\"k\":2}] trailing", 16);
	assert_non_null(t);
	assert_int_equal(json_length(t), 3);
	assert_int_equal(json_length(json_item(t, 1)), 0);
	assert_int_equal(json_length(NULL), 0);
	assert_string_equal(json_string_value(json_item(t, 1)), "a");
	assert_null(json_item(t, 3));
	assert_null(json_item(NULL, 0));
	const cJSON *el;
	size_t n = 0;
	JSON_EACH(el, t) {
		n++;
	}
	assert_int_equal(n, 3);
	JSON_EACH(el, json_item(t, 2)) {
		assert_string_equal(json_key(el), "k");
	}
	assert_null(json_key(json_item(t, 0)));
	n = 0;
	JSON_EACH(el, json_item(t, 0)) { /* a scalar: nothing */
		n++;
	}
	assert_int_equal(n, 0);
	char *text = json_print_compact(json_item(t, 2));
	assert_string_equal(text, "{\"k\":2}");
	json_text_free(text);
	json_tree_free(t);
	assert_null(json_tree_parse("{", 1));
}

static void built_by_hand(void **state)
{
	(void)state;
	cJSON *o = json_new_object();
	assert_non_null(o);
	assert_true(json_add_member(o, "id", json_new_number(42)));
	assert_true(json_add_member(o, "name", json_new_string("row")));
	assert_true(json_add_member(o, "gone", json_new_null()));
	double x = 0;
	assert_true(json_opt_number(o, "id", &x));
	assert_true(x == 42);
	assert_string_equal(json_opt_string(o, "name"), "row");
	assert_true(json_absent(json_member(o, "gone")));
	json_tree_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(types_and_absence),
		cmocka_unit_test(walks),
		cmocka_unit_test(built_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
