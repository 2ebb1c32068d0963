/* test_atomic_write.c: the one write path (atomic_write.h): a new file; an
 * existing file refused unless replacing was asked for, then kept as .bak; a
 * symbolic link refused unless named (a planted link is never written
 * through), named: its target replaced and the .bak beside the target; a
 * read-only file refused unless forced, its mode kept; the owner kept (run as
 * root); a hard link split and said; stale temporaries of this user removed,
 * others' and other files' left; the verify step refusing; a file appearing
 * meanwhile not replaced; a second writer waiting for the folder lock; the
 * loaded input never replaced by any spelling (./s, sub/../s, absolute, a
 * named symbolic link, a hard link) nor backed up over, even when replacing
 * and forcing are asked for. */
#define _DEFAULT_SOURCE /* flock */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "base/atomic_write.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *slurp(const char *path)
{
	static char buf[1 << 12];
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static const struct atomic_write_options replace = { .replace = true };

static void test_new_and_existing(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(dir, "out.json"));
	struct atomic_write_result res;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(atomic_write(path, "one\n", 4, NULL, &res, &err), CS_OK);
	assert_string_equal(slurp(path), "one\n");
	assert_string_equal(res.backup, "");
	assert_false(res.replaced);
	/* Existing: not without asking; nothing left behind. */
	assert_int_equal(atomic_write(path, "two\n", 4, NULL, &res, &err), CS_EUSAGE);
	assert_int_equal(res.refused, ATOMIC_EXISTS);
	assert_non_null(strstr(err.message, "already exists"));
	assert_string_equal(slurp(path), "one\n");
	assert_int_equal(entries(dir), 1);
	/* Asked: replaced, the old one kept as .bak, always. */
	assert_int_equal(atomic_write(path, "two\n", 4, &replace, &res, &err), CS_OK);
	assert_true(res.replaced);
	assert_string_equal(slurp(path), "two\n");
	assert_string_equal(res.backup, support_path(dir, "out.json.bak"));
	assert_string_equal(slurp(res.backup), "one\n");
	assert_int_equal(entries(dir), 2);
	/* A folder is not replaced; a missing folder fails; nothing is left. */
	assert_int_equal(atomic_write(dir, "x", 1, &replace, NULL, &err), CS_EIO);
	assert_int_equal(atomic_write(support_path(dir, "no/such/folder.yml"), "x", 1, NULL, NULL, &err), CS_EIO);
	assert_int_equal(entries(dir), 2);
	assert_int_equal(atomic_step_from_text("3"), ATOMIC_STEP_SYNCED);
	assert_int_equal(atomic_step_from_text("9"), 0);
	assert_int_equal(atomic_step_from_text(NULL), 0);
	support_rmtree(dir);
	free(dir);
}

/* A what-if file's default name planted as a link to someone's .bashrc. */
static void test_planted_link(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "home/.bashrc", "export PATH=/usr/bin\n");
	support_write(dir, "checkout/session.json", "{}\n");
	char link_path[4096], target[4096];
	snprintf(target, sizeof target, "%s", support_path(dir, "home/.bashrc"));
	snprintf(link_path, sizeof link_path, "%s", support_path(dir, "checkout/session.json.edits.json"));
	assert_int_equal(symlink("../home/.bashrc", link_path), 0);
	struct atomic_write_result res;
	struct cs_error err;
	cs_error_clear(&err);
	/* Not named (a default accepted as offered): refused, even when replacing is allowed. */
	assert_int_equal(atomic_write(link_path, "{\"edits\": []}\n", 14, &replace, &res, &err), CS_EUSAGE);
	assert_int_equal(res.refused, ATOMIC_LINK);
	assert_non_null(strstr(err.message, "symbolic link"));
	assert_non_null(strstr(err.message, "../home/.bashrc"));
	assert_string_equal(slurp(target), "export PATH=/usr/bin\n");
	assert_int_equal(entries(support_path(dir, "home")), 1);
	/* Named: written through, the .bak beside the target, and said so. */
	struct atomic_write_options named = { .replace = true, .named = true };
	assert_int_equal(atomic_write(link_path, "new\n", 4, &named, &res, &err), CS_OK);
	struct stat st;
	assert_int_equal(lstat(link_path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(slurp(target), "new\n");
	char bak[4200];
	char *real = realpath(target, NULL);
	snprintf(bak, sizeof bak, "%s.bak", real);
	free(real);
	assert_string_equal(res.backup, bak);
	assert_string_equal(slurp(bak), "export PATH=/usr/bin\n");
	support_rmtree(dir);
	free(dir);
}

static void test_read_only_owner_links(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char path[4096], other[4096];
	support_write(dir, "m.yml", "old\n");
	snprintf(path, sizeof path, "%s", support_path(dir, "m.yml"));
	snprintf(other, sizeof other, "%s", support_path(dir, "other-name.yml"));
	assert_int_equal(chmod(path, 0444), 0);
	struct atomic_write_result res;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(atomic_write(path, "new\n", 4, &replace, &res, &err), CS_EUSAGE);
	assert_int_equal(res.refused, ATOMIC_READONLY);
	assert_non_null(strstr(err.message, "read-only"));
	assert_string_equal(slurp(path), "old\n");
	/* Forced: replaced, mode kept; owner kept where permitted (root). */
	bool root = geteuid() == 0;
	if (root)
		assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(link(path, other), 0);
	struct atomic_write_options force = { .replace = true, .force = true };
	assert_int_equal(atomic_write(path, "new\n", 4, &force, &res, &err), CS_OK);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0444);
	if (root) {
		assert_int_equal(st.st_uid, 65534);
		assert_int_equal(st.st_gid, 65534);
		assert_false(res.owner_changed);
	}
	/* The hard link is split, and said: the other name keeps the old text. */
	assert_int_equal(res.other_links, 1);
	assert_string_equal(slurp(other), "old\n");
	assert_string_equal(slurp(path), "new\n");
	/* Written again: no other link now (the .bak does not count). */
	assert_int_equal(atomic_write(path, "newer\n", 6, &force, &res, &err), CS_OK);
	assert_int_equal(res.other_links, 0);
	support_rmtree(dir);
	free(dir);
}

static void test_stale_temporaries(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "m.yml", "old\n");
	support_write(dir, ".m.yml.ctxscope-AbC123", "half a fi");
	support_write(dir, ".m.yml.bak.ctxscope-xYz789", "old");
	support_write(dir, ".other.yml.ctxscope-AbC123", "not ours to remove");
	support_write(dir, ".m.yml.ctxscope-toolongname", "not a temporary");
	bool root = geteuid() == 0;
	if (root) {
		support_write(dir, ".m.yml.ctxscope-user42", "another user's");
		assert_int_equal(chown(support_path(dir, ".m.yml.ctxscope-user42"), 65534, 65534), 0);
	}
	struct atomic_write_result res;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(atomic_write(support_path(dir, "m.yml"), "new\n", 4, &replace, &res, &err), CS_OK);
	assert_int_equal(res.stale_removed, 2);
	assert_int_equal(access(support_path(dir, ".m.yml.ctxscope-AbC123"), F_OK), -1);
	assert_int_equal(access(support_path(dir, ".m.yml.bak.ctxscope-xYz789"), F_OK), -1);
	assert_int_equal(access(support_path(dir, ".other.yml.ctxscope-AbC123"), F_OK), 0);
	assert_int_equal(access(support_path(dir, ".m.yml.ctxscope-toolongname"), F_OK), 0);
	if (root)
		assert_int_equal(access(support_path(dir, ".m.yml.ctxscope-user42"), F_OK), 0);
	support_rmtree(dir);
	free(dir);
}

static int refuse_verify(const char *target, void *ctx, struct cs_error *err)
{
	(void)target;
	(*(int *)ctx)++;
	return cs_error_set(err, CS_ESTATE, "changed on disk");
}

/* Another program creates the file while ours is being written. */
static int create_it(const char *target, void *ctx, struct cs_error *err)
{
	(void)ctx;
	(void)err;
	FILE *f = fopen(target, "w");
	fputs("theirs\n", f);
	fclose(f);
	return CS_OK;
}

static void test_verify_and_appeared(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "m.yml", "old\n");
	int calls = 0;
	struct atomic_write_options o = { .replace = true, .verify = refuse_verify, .verify_ctx = &calls };
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(atomic_write(support_path(dir, "m.yml"), "new\n", 4, &o, NULL, &err), CS_ESTATE);
	assert_int_equal(calls, 1);
	assert_string_equal(slurp(support_path(dir, "m.yml")), "old\n");
	assert_int_equal(entries(dir), 1);
	struct atomic_write_options c = { .replace = true, .verify = create_it };
	struct atomic_write_result res;
	assert_int_equal(atomic_write(support_path(dir, "new.yml"), "ours\n", 5, &c, &res, &err), CS_ESTATE);
	assert_int_equal(res.refused, ATOMIC_APPEARED);
	assert_string_equal(slurp(support_path(dir, "new.yml")), "theirs\n");
	assert_int_equal(entries(dir), 2);
	support_rmtree(dir);
	free(dir);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A second writer in the folder waits until the first lets go. */
static void test_folder_lock(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY);
		if (fd < 0 || flock(fd, LOCK_EX) != 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		struct timespec ts = { 0, 400 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		_exit(0);
	}
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	double t0 = now_s();
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(atomic_write(support_path(dir, "m.yml"), "x\n", 2, NULL, NULL, &err), CS_OK);
	double waited = now_s() - t0;
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(waited > 0.2);
	close(ready[0]);
	close(ready[1]);
	support_rmtree(dir);
	free(dir);
}

/* Another user who can write the folder but not the file (run as root: a
 * child becomes nobody): refused unless forced; forced, the file becomes
 * theirs, and that is said. */
static void test_another_users_file(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	char *dir = support_tempdir();
	support_write(dir, "m.yml", "root's\n");
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(chmod(support_path(dir, "m.yml"), 0644), 0);
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(dir, "m.yml"));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(10);
		struct atomic_write_result res;
		struct cs_error err;
		cs_error_clear(&err);
		if (atomic_write(path, "nobody's\n", 9, &replace, &res, &err) != CS_EUSAGE || res.refused != ATOMIC_READONLY)
			_exit(11);
		struct atomic_write_options force = { .replace = true, .force = true };
		if (atomic_write(path, "nobody's\n", 9, &force, &res, &err) != CS_OK || !res.owner_changed)
			_exit(12);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(slurp(path), "nobody's\n");
	support_rmtree(dir);
	free(dir);
}

/* The input never replaced, whatever the path's spelling, asked or not. */
static void test_never_the_input(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "s.jsonl", "the input\n");
	support_write(dir, "sub/x", "x\n");
	char input[1024], spelled[6][4200];
	snprintf(input, sizeof input, "%s", support_path(dir, "s.jsonl"));
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(symlink("s.jsonl", "link.jsonl"), 0);
	assert_int_equal(link("s.jsonl", "hard.jsonl"), 0);
	char abs[4096];
	assert_non_null(realpath("s.jsonl", abs));
	snprintf(spelled[0], sizeof spelled[0], "s.jsonl");
	snprintf(spelled[1], sizeof spelled[1], "./s.jsonl");
	snprintf(spelled[2], sizeof spelled[2], "sub/../s.jsonl");
	snprintf(spelled[3], sizeof spelled[3], "%s", abs);
	snprintf(spelled[4], sizeof spelled[4], "link.jsonl");
	snprintf(spelled[5], sizeof spelled[5], "hard.jsonl");
	const struct atomic_write_options all = { .replace = true, .named = true, .force = true, .input = "s.jsonl" };
	for (int i = 0; i < 6; i++) {
		struct atomic_write_result res;
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_equal(atomic_write(spelled[i], "what-if\n", 8, &all, &res, &err), CS_EUSAGE);
		assert_int_equal(res.refused, ATOMIC_INPUT);
		assert_non_null(strstr(err.message, "input file"));
		assert_string_equal(slurp("s.jsonl"), "the input\n");
		assert_string_equal(slurp("hard.jsonl"), "the input\n");
		assert_int_equal(access("s.jsonl.bak", F_OK), -1);
	}
	/* the input named by its absolute path, written by a relative one */
	struct atomic_write_options by_abs = all;
	by_abs.input = abs;
	assert_int_equal(atomic_write("./sub/../s.jsonl", "w\n", 2, &by_abs, NULL, NULL), CS_EUSAGE);
	/* X whose backup X.bak is the input: refused too */
	support_write(dir, "t", "t\n");
	assert_int_equal(rename("s.jsonl", "t.bak"), 0);
	struct atomic_write_options bak = all;
	bak.input = "t.bak";
	struct atomic_write_result res;
	assert_int_equal(atomic_write("t", "new\n", 4, &bak, &res, NULL), CS_EUSAGE);
	assert_int_equal(res.refused, ATOMIC_INPUT);
	assert_string_equal(slurp("t.bak"), "the input\n");
	assert_string_equal(slurp("t"), "t\n");
	/* another file is written as before */
	assert_int_equal(atomic_write("other.jsonl", "ok\n", 3, &bak, &res, NULL), CS_OK);
	assert_int_equal(chdir(cwd), 0);
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_existing),
		cmocka_unit_test(test_never_the_input),
		cmocka_unit_test(test_planted_link),
		cmocka_unit_test(test_read_only_owner_links),
		cmocka_unit_test(test_stale_temporaries),
		cmocka_unit_test(test_verify_and_appeared),
		cmocka_unit_test(test_folder_lock),
		cmocka_unit_test(test_another_users_file),
	};
	return cmocka_run_group_tests_name("atomic_write", tests, NULL, NULL);
}
