/* actions.c: the action table, key names, keymap and help (see actions.h). */
#include "actions.h"

#include "kind.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

static const char *const action_names[] = {
#define ACT_X_NAME(e, name, keys, help) name,
	ACTIONS(ACT_X_NAME)
#undef ACT_X_NAME
};
static const char *const action_key_lists[] = {
#define ACT_X_KEYS(e, name, keys, help) keys,
	ACTIONS(ACT_X_KEYS)
#undef ACT_X_KEYS
};
static const char *const action_helps[] = {
#define ACT_X_HELP(e, name, keys, help) help,
	ACTIONS(ACT_X_HELP)
#undef ACT_X_HELP
};

const char *action_name(int action)
{
	return action >= 0 && action < ACT_COUNT ? action_names[action] : "";
}

const char *action_keys(int action)
{
	return action >= 0 && action < ACT_COUNT ? action_key_lists[action] : "";
}

const char *action_help(int action)
{
	return action >= 0 && action < ACT_COUNT ? action_helps[action] : "";
}

int action_from_name(const char *name)
{
	for (int i = 0; i < ACT_COUNT; i++)
		if (strcmp(action_names[i], name) == 0)
			return i;
	return ACT_NONE;
}

static const struct {
	int key;
	const char *name;
} key_names[] = {
	{ CSK_UP, "Up" },       { CSK_DOWN, "Down" }, { CSK_LEFT, "Left" },   { CSK_RIGHT, "Right" },
	{ CSK_PGUP, "PgUp" },   { CSK_PGDN, "PgDn" }, { CSK_HOME, "Home" },   { CSK_END, "End" },
	{ CSK_ENTER, "Enter" }, { CSK_TAB, "Tab" },   { CSK_ESC, "Esc" },     { CSK_BACKSPACE, "Backspace" },
	{ CSK_SPACE, "Space" }, { ',', "Comma" }, { CSK_CTRL_C, "C-c" }, { CSK_CTRL_R, "C-r" }, { CSK_CTRL_U, "C-u" },
};

bool cskey_name(int key, char *buf, size_t cap)
{
	for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
		if (key_names[i].key == key)
			return (size_t)snprintf(buf, cap, "%s", key_names[i].name) < cap;
	if (key > ' ' && key < 0x7f && cap >= 2) {
		buf[0] = (char)key;
		buf[1] = '\0';
		return true;
	}
	return false;
}

bool cskey_from_name(const char *name, int *key)
{
	if (name[0] > ' ' && name[0] < 0x7f && name[1] == '\0') {
		*key = name[0];
		return true;
	}
	for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
		if (strcmp(key_names[i].name, name) == 0) {
			*key = key_names[i].key;
			return true;
		}
	return false;
}

bool keymap_default(struct keymap *km)
{
	km->n = 0;
	for (int a = 0; a < ACT_COUNT; a++) {
		const char *p = action_key_lists[a];
		while (*p) {
			while (*p == ' ')
				p++;
			size_t n = strcspn(p, " ");
			if (n == 0)
				break;
			char name[32];
			if (n >= sizeof name || km->n == KEYMAP_MAX)
				return false;
			memcpy(name, p, n);
			name[n] = '\0';
			int key;
			if (!cskey_from_name(name, &key))
				return false;
			km->keys[km->n] = key;
			km->actions[km->n] = a;
			km->n++;
			p += n;
		}
	}
	return true;
}

int keymap_lookup(const struct keymap *km, int key)
{
	for (size_t i = 0; i < km->n; i++)
		if (km->keys[i] == key)
			return km->actions[i];
	return ACT_NONE;
}

void actions_help_line(struct strbuf *out, const char *keys, const char *name, const char *help)
{
	sb_printf(out, "  %-10s %-18s %s\n", keys, name, help);
}

void actions_help_offered(struct strbuf *out, const struct kind_ops *kind, bool (*offered)(int action, const void *ctx),
			  const void *ctx)
{
	sb_puts(out, "ctxscope keys (Esc or ? closes this help)\n\n");
	struct strbuf sort = STRBUF_INIT;
	if (kind && kind->sort_keys) {
		sb_puts(&sort, "sort rows by ");
		kind_sort_keys_text(kind, " or ", &sort);
		sb_puts(&sort, " (:sort KEY picks one)");
	}
	for (int a = 0; a < ACT_COUNT; a++)
		if (!offered || offered(a, ctx))
			actions_help_line(out, action_key_lists[a], action_names[a],
					  a == ACT_SORT && sort.len ? sb_str(&sort) : action_helps[a]);
	if (sort.failed)
		out->failed = true;
	sb_fini(&sort);
}

void actions_help(struct strbuf *out)
{
	actions_help_offered(out, NULL, NULL, NULL);
}

const struct kind_action *kind_action_for_key(const struct kind_ops *kind, int key)
{
	for (const struct kind_action *a = kind->actions; a && a->key; a++) {
		int k;
		if (cskey_from_name(a->key, &k) && k == key)
			return a;
	}
	return NULL;
}

/* One key's name as roff writes it: "C-r" is Ctrl\-R, "-" \-, "\" \e. */
static void man_key(struct strbuf *out, const char *key, size_t n)
{
	if (n == 3 && !strncmp(key, "C-", 2)) {
		sb_printf(out, "Ctrl\\-%c", key[2] - 'a' + 'A');
		return;
	}
	for (size_t i = 0; i < n; i++)
		sb_puts(out, key[i] == '-' ? "\\-" : key[i] == '\\' ? "\\e" : (char[]){ key[i], 0 });
}

void actions_man_tag(struct strbuf *out, const char *keys, const char *name, const char *kind)
{
	sb_puts(out, ".BR ");
	for (const char *p = keys; *p;) {
		size_t n = strcspn(p, " ");
		man_key(out, p, n);
		p += n;
		while (*p == ' ')
			p++;
		if (*p)
			sb_puts(out, " \", \" ");
	}
	sb_printf(out, " \"  (%s%s%s)\"\n", name, kind ? "; " : "", kind ? kind : "");
}

void actions_man_tags(struct strbuf *out, const struct kind_ops *const *kinds)
{
	for (int a = 0; a < ACT_COUNT; a++)
		actions_man_tag(out, action_key_lists[a], action_names[a], NULL);
	for (size_t k = 0; kinds && kinds[k]; k++)
		for (const struct kind_action *a = kinds[k]->actions; a && a->key; a++)
			actions_man_tag(out, a->key, a->name, kinds[k]->title);
}
