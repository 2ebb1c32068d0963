/* test_tune.c: the one entry to the process-wide switches (base/tune.h):
 * each op sets its switch, RESET gives the defaults back, an unknown op is
 * refused and changes nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/tune.h"

static void test_each_switch_and_reset(void **state)
{
	(void)state;
	assert_true(cs_tuned->manifest_quick && cs_tuned->ledger_quick && cs_tuned->memory_quick && cs_tuned->cc_fast);
	assert_true(cs_tuned->vm_virtual_rows && cs_tuned->utf8_fast);
	assert_int_equal(cs_tuned->memory_cascade_min, CS_TUNE_CASCADE_MIN);
	assert_int_equal(cs_tuned->cc_max_units, 0);
	assert_int_equal(cs_tune(CS_TUNE_MANIFEST_QUICK, 0), 0);
	assert_int_equal(cs_tune(CS_TUNE_LEDGER_QUICK, 0), 0);
	assert_int_equal(cs_tune(CS_TUNE_MEMORY_QUICK, 0), 0);
	assert_int_equal(cs_tune(CS_TUNE_CC_FAST, 0), 0);
	assert_int_equal(cs_tune(CS_TUNE_VM_VIRTUAL_ROWS, 0), 0);
	assert_int_equal(cs_tune(CS_TUNE_UTF8_FAST, 0), 0);
	assert_int_equal(cs_tune(CS_TUNE_CC_MAX_UNITS, (size_t)20), 0);
	assert_int_equal(cs_tune(CS_TUNE_MEMORY_CASCADE_MIN, (size_t)0), 0);
	assert_false(cs_tuned->manifest_quick || cs_tuned->ledger_quick || cs_tuned->memory_quick || cs_tuned->cc_fast);
	assert_false(cs_tuned->vm_virtual_rows || cs_tuned->utf8_fast);
	assert_int_equal(cs_tuned->cc_max_units, 20);
	assert_int_equal(cs_tuned->memory_cascade_min, 0);
	assert_int_equal(cs_tune(-1), -1);
	assert_int_equal(cs_tune(CS_TUNE_RESET + 1, 1), -1);
	assert_int_equal(cs_tuned->cc_max_units, 20); /* unchanged by a refused op */
	assert_int_equal(cs_tune(CS_TUNE_RESET), 0);
	assert_true(cs_tuned->manifest_quick && cs_tuned->utf8_fast && cs_tuned->vm_virtual_rows);
	assert_int_equal(cs_tuned->memory_cascade_min, CS_TUNE_CASCADE_MIN);
	assert_int_equal(cs_tuned->cc_max_units, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_switch_and_reset),
	};
	return cmocka_run_group_tests_name("tune", tests, NULL, NULL);
}
