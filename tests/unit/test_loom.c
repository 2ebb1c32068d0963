/* test_loom.c: the loom-tree kind: path resolution, structural errors, each
 * exclusion reason, merging, multi-source order, buffer mode, each strategy
 * at its boundaries, loom-aware rendering and its options. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "kind.h"
#include "load.h"
#include "kinds/loom/loom.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building trees ------------------------------------------------------ */

/* A node: author 'h' or 'm', text, extra metadata (JSON members or ""). */
static void node(struct strbuf *sb, const char *id, char author, const char *text, const char *meta)
{
	sb_printf(sb, "%s{\"id\":\"%s\",\"localId\":\"L-%s\",\"authorType\":\"%s\","
		      "\"content\":{\"type\":\"text\",\"text\":\"%s\"},\"metadata\":{%s}}",
		  sb->data && sb->data[sb->len - 1] == '}' ? "," : "", id, id, author == 'h' ? "human" : "model", text,
		  meta);
}

static void edge(struct strbuf *sb, const char *id, const char *type, const char *target, const char *sources)
{
	sb_printf(sb, "%s{\"id\":\"%s\",\"edgeType\":\"%s\",\"targetNodeId\":\"%s\",\"sources\":[%s]}",
		  sb->data && sb->data[sb->len - 1] == '}' ? "," : "", id, type, target, sources);
}

/* Writes a whole tree and loads it. */
static struct source *tree(const char *head, const char *nodes, const char *edges, const char *path,
			   const char *tail)
{
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "{\"loomTree\":{%s},\"nodes\":[%s],\"edges\":[%s],\"path\":{%s}%s}", head, nodes, edges, path,
		  tail ? tail : "");
	support_write(support_dir, "t.json", sb_str(&sb));
	sb_fini(&sb);
	return support_load(support_path(support_dir, "t.json"), "loom");
}

static int tree_error(const char *head, const char *nodes, const char *edges, const char *path, struct cs_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "{\"loomTree\":{%s},\"nodes\":[%s],\"edges\":[%s],\"path\":{%s}}", head, nodes, edges, path);
	support_write(support_dir, "bad.json", sb_str(&sb));
	sb_fini(&sb);
	return support_load_error(support_path(support_dir, "bad.json"), "loom", err);
}

#define X40 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" /* 40 code points: 10 tokens */

/* A linear dialogue n1..nk, alternating human/model from human, each text
 * 10 tokens; no system context. */
static struct source *linear(int k, const char *head_extra, const char *tail)
{
	struct strbuf nodes = STRBUF_INIT, edges = STRBUF_INIT;
	char id[16], prev[16], src[64], head[512], path[64];
	for (int i = 1; i <= k; i++) {
		snprintf(id, sizeof id, "n%d", i);
		node(&nodes, id, i % 2 ? 'h' : 'm', X40, "");
		if (i > 1) {
			snprintf(src, sizeof src, "{\"nodeId\":\"%s\",\"role\":\"primary\"}", prev);
			char eid[16];
			snprintf(eid, sizeof eid, "e%d", i);
			edge(&edges, eid, "continuation", id, src);
		}
		snprintf(prev, sizeof prev, "%s", id);
	}
	snprintf(head, sizeof head, "\"rootNodeId\":\"n1\"%s", head_extra ? head_extra : "");
	snprintf(path, sizeof path, "\"activeNodeId\":\"n%d\"", k);
	struct source *s = tree(head, sb_str(&nodes), sb_str(&edges), path, tail);
	sb_fini(&nodes);
	sb_fini(&edges);
	return s;
}

static const char *reason_of(struct source *src, const struct assembly *a, const char *id)
{
	return reason_code(a->results[support_piece(src, id)].reason);
}

static bool in_prompt(struct source *src, const struct assembly *a, const char *id)
{
	return a->results[support_piece(src, id)].outcome == OUTCOME_WHOLE;
}

/* ---- path resolution ----------------------------------------------------- */

static const char *BRANCHY_NODES =
	"{\"id\":\"r\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"root\"},\"createdAt\":\"2026-01-30T10:00:00Z\"},"
	"{\"id\":\"a\",\"authorType\":\"model\",\"content\":{\"type\":\"text\",\"text\":\"a\"},\"createdAt\":\"2026-01-30T10:01:00Z\"},"
	"{\"id\":\"b\",\"authorType\":\"model\",\"content\":{\"type\":\"text\",\"text\":\"b\"},\"createdAt\":\"2026-01-30T10:02:00Z\"},"
	"{\"id\":\"c\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"c\"},\"createdAt\":1769767500000}";
/* r -> a, r -> b; c continues from a or b (two edges into c) */
static const char *BRANCHY_EDGES =
	"{\"id\":\"ea\",\"edgeType\":\"continuation\",\"targetNodeId\":\"a\",\"sources\":[{\"nodeId\":\"r\",\"role\":\"primary\"}]},"
	"{\"id\":\"eb\",\"edgeType\":\"continuation\",\"targetNodeId\":\"b\",\"sources\":[{\"nodeId\":\"r\",\"role\":\"primary\"}]},"
	"{\"id\":\"eca\",\"edgeType\":\"continuation\",\"targetNodeId\":\"c\",\"sources\":[{\"nodeId\":\"a\",\"role\":\"primary\"}]},"
	"{\"id\":\"ecb\",\"edgeType\":\"continuation\",\"targetNodeId\":\"c\",\"sources\":[{\"nodeId\":\"b\",\"role\":\"primary\"}]}";

static void test_path_explicit(void **state)
{
	(void)state;
	struct source *src = tree("\"rootNodeId\":\"r\"", BRANCHY_NODES, BRANCHY_EDGES, "\"nodeIds\":[\"r\",\"b\",\"c\"]", NULL);
	assert_int_equal(src->npieces, 3);
	assert_string_equal(src->pieces[1].id, "b");
	assert_int_equal(source_find_piece(src, "a"), -1); /* off the path: not a piece */
	const struct loom *m = src->model;
	assert_string_equal(m->path_source, "path.nodeIds");
	assert_int_equal(m->branch_points, 1);
	assert_int_equal(m->nnodes, 4);
	source_free(src);

	struct cs_error err;
	/* a step with no edge joining it */
	tree_error("\"rootNodeId\":\"r\"", BRANCHY_NODES, BRANCHY_EDGES, "\"nodeIds\":[\"r\",\"c\"]", &err);
	assert_string_equal(err.path, "path.nodeIds[1]");
	assert_non_null(strstr(err.message, "no edge joins \"r\" to \"c\""));
	/* not starting at the root */
	tree_error("\"rootNodeId\":\"r\"", BRANCHY_NODES, BRANCHY_EDGES, "\"nodeIds\":[\"a\",\"c\"]", &err);
	assert_non_null(strstr(err.message, "must start at the root"));
}

static void test_path_walk_up_and_selections(void **state)
{
	(void)state;
	struct cs_error err;
	/* two continuations into c and no selection: ambiguous */
	tree_error("\"rootNodeId\":\"r\"", BRANCHY_NODES, BRANCHY_EDGES, "\"activeNodeId\":\"c\"", &err);
	assert_int_equal(err.code, CS_ESTRUCT);
	assert_non_null(strstr(err.message, "ambiguous path at node c"));
	assert_non_null(strstr(err.message, "add path.selections"));
	assert_true(err.line > 0);

	struct source *src = tree("\"rootNodeId\":\"r\"", BRANCHY_NODES, BRANCHY_EDGES,
				  "\"activeNodeId\":\"c\",\"selections\":[{\"targetNodeId\":\"c\",\"selectedEdgeId\":\"ecb\"}]",
				  NULL);
	assert_int_equal(src->npieces, 3);
	assert_string_equal(src->pieces[0].id, "r");
	assert_string_equal(src->pieces[1].id, "b");
	assert_string_equal(src->pieces[2].id, "c");
	assert_non_null(strstr(((const struct loom *)src->model)->path_source, "walk-up from activeNodeId c"));
	source_free(src);

	/* a selection naming an edge that does not lead to the node */
	tree_error("\"rootNodeId\":\"r\"", BRANCHY_NODES, BRANCHY_EDGES,
		   "\"activeNodeId\":\"c\",\"selections\":[{\"targetNodeId\":\"c\",\"selectedEdgeId\":\"ea\"}]", &err);
	assert_string_equal(err.path, "path.selections[0].selectedEdgeId");
}

/* One edge with two primary sources (buffer-mode versions of one node). */
static const char *VERSION_EDGES =
	"{\"id\":\"ea\",\"edgeType\":\"continuation\",\"targetNodeId\":\"a\",\"sources\":[{\"nodeId\":\"r\"}]},"
	"{\"id\":\"eb\",\"edgeType\":\"continuation\",\"targetNodeId\":\"b\",\"sources\":[{\"nodeId\":\"r\"}]},"
	"{\"id\":\"ec\",\"edgeType\":\"continuation\",\"targetNodeId\":\"c\",\"sources\":[{\"nodeId\":\"a\",\"role\":\"primary\"},{\"nodeId\":\"b\",\"role\":\"primary\"}]}";

static void test_path_versions(void **state)
{
	(void)state;
	/* no selection: the version created last (b, 10:02) */
	struct source *src = tree("\"rootNodeId\":\"r\",\"mode\":\"buffer\"", BRANCHY_NODES, VERSION_EDGES,
				  "\"activeNodeId\":\"c\"", NULL);
	assert_string_equal(src->pieces[1].id, "b");
	source_free(src);
	src = tree("\"rootNodeId\":\"r\",\"mode\":\"buffer\"", BRANCHY_NODES, VERSION_EDGES,
		   "\"activeNodeId\":\"c\",\"selections\":[{\"targetNodeId\":\"c\",\"selectedSourceNodeId\":\"a\"}]", NULL);
	assert_string_equal(src->pieces[1].id, "a");
	source_free(src);
	struct cs_error err;
	tree_error("\"rootNodeId\":\"r\",\"mode\":\"buffer\"", BRANCHY_NODES, VERSION_EDGES,
		   "\"activeNodeId\":\"c\",\"selections\":[{\"targetNodeId\":\"c\",\"selectedSourceNodeId\":\"r\"}]", &err);
	assert_non_null(strstr(err.message, "not a primary source of edge \"ec\""));
}

static void test_path_cycles_and_roots(void **state)
{
	(void)state;
	struct cs_error err;
	const char *nodes =
		"{\"id\":\"r\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"r\"}},"
		"{\"id\":\"a\",\"authorType\":\"model\",\"content\":{\"type\":\"text\",\"text\":\"a\"}},"
		"{\"id\":\"b\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"b\"}}";
	const char *cycle =
		"{\"id\":\"e1\",\"edgeType\":\"continuation\",\"targetNodeId\":\"a\",\"sources\":[{\"nodeId\":\"b\"}]},"
		"{\"id\":\"e2\",\"edgeType\":\"continuation\",\"targetNodeId\":\"b\",\"sources\":[{\"nodeId\":\"a\"}]}";
	tree_error("\"rootNodeId\":\"r\"", nodes, cycle, "\"activeNodeId\":\"b\"", &err);
	assert_non_null(strstr(err.message, "cycle"));
	/* a cycle the walk never meets is still a fault, told at the edge that
	 * closes it (the last in the file) and naming every edge on it */
	char with_root[512];
	snprintf(with_root, sizeof with_root,
		 "{\"id\":\"e0\",\"edgeType\":\"continuation\",\"targetNodeId\":\"a\",\"sources\":[{\"nodeId\":\"r\"}]},%s",
		 cycle);
	tree_error("\"rootNodeId\":\"r\"", nodes, with_root, "\"activeNodeId\":\"r\"", &err);
	assert_string_equal(err.path, "edges[2].targetNodeId");
	assert_non_null(strstr(err.message, "the edges form a cycle"));
	assert_non_null(strstr(err.message, "(edge \"e1\")"));
	assert_non_null(strstr(err.message, "(edge \"e2\")"));
	assert_null(strstr(err.message, "e0"));
	/* the root given a parent below it: a cycle through the root */
	tree_error("\"rootNodeId\":\"r\"", nodes,
		   "{\"id\":\"e1\",\"edgeType\":\"continuation\",\"targetNodeId\":\"a\",\"sources\":[{\"nodeId\":\"r\"}]},"
		   "{\"id\":\"e2\",\"edgeType\":\"continuation\",\"targetNodeId\":\"r\",\"sources\":[{\"nodeId\":\"a\"}]}",
		   "\"activeNodeId\":\"a\"", &err);
	assert_string_equal(err.path, "edges[1].targetNodeId");
	assert_non_null(strstr(err.message, "the edges form a cycle: \"r\" -> \"a\" (edge \"e1\") -> \"r\" (edge \"e2\")"));
	/* the root given a parent outside the tree: no cycle, still no root */
	tree_error("\"rootNodeId\":\"r\"", nodes,
		   "{\"id\":\"e1\",\"edgeType\":\"continuation\",\"targetNodeId\":\"a\",\"sources\":[{\"nodeId\":\"r\"}]},"
		   "{\"id\":\"e2\",\"edgeType\":\"continuation\",\"targetNodeId\":\"r\",\"sources\":[{\"nodeId\":\"b\"}]}",
		   "\"activeNodeId\":\"a\"", &err);
	assert_string_equal(err.path, "edges[1].targetNodeId");
	assert_non_null(strstr(err.message, "gives the root \"r\""));
	/* a node twice on an explicit path, the edges a tree */
	tree_error("\"rootNodeId\":\"r\"", nodes,
		   "{\"id\":\"e1\",\"edgeType\":\"continuation\",\"targetNodeId\":\"a\",\"sources\":[{\"nodeId\":\"r\"}]},"
		   "{\"id\":\"e2\",\"edgeType\":\"continuation\",\"targetNodeId\":\"b\",\"sources\":[{\"nodeId\":\"a\"}]}",
		   "\"nodeIds\":[\"r\",\"a\",\"b\",\"a\"]", &err);
	assert_string_equal(err.path, "path.nodeIds[3]");
	/* a walk that ends at a node that is not the root */
	tree_error("\"rootNodeId\":\"r\"", nodes,
		   "{\"id\":\"e1\",\"edgeType\":\"continuation\",\"targetNodeId\":\"b\",\"sources\":[{\"nodeId\":\"a\"}]}",
		   "\"activeNodeId\":\"b\"", &err);
	assert_non_null(strstr(err.message, "stops at node \"a\""));
	/* a missing or dangling root */
	tree_error("\"title\":\"x\"", nodes, "", "\"activeNodeId\":\"r\"", &err);
	assert_string_equal(err.path, "loomTree");
	assert_non_null(strstr(err.message, "rootNodeId"));
	tree_error("\"rootNodeId\":\"zz\"", nodes, "", "\"activeNodeId\":\"r\"", &err);
	assert_string_equal(err.path, "loomTree.rootNodeId");
}

static void test_structural_errors(void **state)
{
	(void)state;
	struct cs_error err;
	const char *nodes =
		"{\"id\":\"r\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"r\"}},"
		"{\"id\":\"a\",\"authorType\":\"model\",\"content\":{\"type\":\"text\",\"text\":\"a\"}}";
	/* a dangling source id names the full path */
	tree_error("\"rootNodeId\":\"r\"", nodes,
		   "{\"id\":\"e1\",\"edgeType\":\"continuation\",\"targetNodeId\":\"a\",\"sources\":[{\"nodeId\":\"r\"}]},"
		   "{\"id\":\"e2\",\"edgeType\":\"continuation\",\"targetNodeId\":\"a\",\"sources\":[{\"nodeId\":\"n99\"}]}",
		   "\"activeNodeId\":\"a\"", &err);
	assert_string_equal(err.path, "edges[1].sources[0].nodeId");
	assert_string_equal(err.message, "no node \"n99\"");
	assert_true(err.line >= 1 && err.column > 1);
	/* duplicate ids */
	tree_error("\"rootNodeId\":\"r\"",
		   "{\"id\":\"r\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"r\"}},"
		   "{\"id\":\"r\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"r\"}}",
		   "", "\"activeNodeId\":\"r\"", &err);
	assert_string_equal(err.path, "nodes[1].id");
	assert_non_null(strstr(err.message, "duplicate node id \"r\""));
	/* wrong types */
	tree_error("\"rootNodeId\":\"r\"",
		   "{\"id\":\"r\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"r\"},\"metadata\":{\"excluded\":\"yes\"}}",
		   "", "\"activeNodeId\":\"r\"", &err);
	assert_int_equal(err.code, CS_ETYPE);
	assert_string_equal(err.path, "nodes[0].metadata.excluded");
	tree_error("\"rootNodeId\":\"r\"",
		   "{\"id\":\"r\",\"authorType\":\"robot\",\"content\":{\"type\":\"text\",\"text\":\"r\"}}", "",
		   "\"activeNodeId\":\"r\"", &err);
	assert_string_equal(err.path, "nodes[0].authorType");
	tree_error("\"rootNodeId\":\"r\"",
		   "{\"id\":\"r\",\"authorType\":\"human\",\"content\":{\"type\":\"video\"}}", "", "\"activeNodeId\":\"r\"",
		   &err);
	assert_string_equal(err.path, "nodes[0].content.type");
	/* keys are case-sensitive: "Nodes" is not "nodes" */
	support_write(support_dir, "case.json",
		      "{\"loomTree\":{\"rootNodeId\":\"r\"},\"Nodes\":[{\"id\":\"r\",\"authorType\":\"human\","
		      "\"content\":{\"type\":\"text\",\"text\":\"r\"}}],\"nodes\":[],\"edges\":[],\"path\":{}}");
	support_load_error(support_path(support_dir, "case.json"), "loom", &err);
	assert_string_equal(err.path, "loomTree.rootNodeId"); /* "Nodes" is not read */
	assert_string_equal(err.message, "no node \"r\"");
	/* several model agents and no path.agentId */
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "{\"loomTree\":{\"rootNodeId\":\"r\"},\"agents\":[{\"id\":\"x\",\"type\":\"model\"},"
		       "{\"id\":\"y\",\"type\":\"model\"}],\"nodes\":[%s],\"edges\":[],\"path\":{\"activeNodeId\":\"r\"}}",
		  "{\"id\":\"r\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"r\"}}");
	support_write(support_dir, "agents.json", sb_str(&sb));
	sb_fini(&sb);
	support_load_error(support_path(support_dir, "agents.json"), "loom", &err);
	assert_non_null(strstr(err.message, "2 model agents and no path.agentId"));
}

/* ---- exclusion, merging, multi-source ------------------------------------ */

static void test_exclusion_reasons(void **state)
{
	(void)state;
	struct strbuf n = STRBUF_INIT, e = STRBUF_INIT;
	node(&n, "r", 'h', "root question", "");
	node(&n, "x", 'm', "excluded answer", "\"excluded\":true");
	node(&n, "p", 'h', "pruned question", "\"pruned\":true");
	node(&n, "an", 'h', "a note", "");
	node(&n, "ai", 'h', "an included note", "\"includeAnnotation\":true");
	node(&n, "em", 'm', "  \\n\\t ", "");
	node(&n, "z", 'm', "last answer", "");
	edge(&e, "e1", "continuation", "x", "{\"nodeId\":\"r\"}");
	edge(&e, "e2", "continuation", "p", "{\"nodeId\":\"x\"}");
	edge(&e, "e3", "annotation", "an", "{\"nodeId\":\"p\"}");
	edge(&e, "e4", "annotation", "ai", "{\"nodeId\":\"an\"}");
	edge(&e, "e5", "continuation", "em", "{\"nodeId\":\"ai\"}");
	edge(&e, "e6", "continuation", "z", "{\"nodeId\":\"em\"}");
	struct source *src = tree("\"rootNodeId\":\"r\"", sb_str(&n), sb_str(&e), "\"activeNodeId\":\"z\"", NULL);
	struct assembly a;
	support_assemble(src, &a);
	assert_string_equal(reason_of(src, &a, "x"), "excluded");
	assert_string_equal(reason_of(src, &a, "p"), "pruned");
	assert_string_equal(reason_of(src, &a, "an"), "annotation");
	assert_true(in_prompt(src, &a, "ai")); /* the includeAnnotation override */
	assert_string_equal(reason_of(src, &a, "em"), "empty");
	assert_true(in_prompt(src, &a, "r"));
	assert_true(in_prompt(src, &a, "z"));
	/* filtered first: r and ai (both human) merge; then z */
	assert_int_equal(a.nmessages, 2);
	assert_int_equal(a.messages[0].nblocks, 2);
	asm_fini(&a);

	/* the user's choice wins both ways */
	support_set(src, "include", "x");
	support_set(src, "exclude", "z");
	support_assemble(src, &a);
	assert_true(in_prompt(src, &a, "x"));
	assert_string_equal(reason_of(src, &a, "z"), "excluded-by-user");
	assert_non_null(strstr(a.results[support_piece(src, "z")].sentence, "excluded by you"));
	/* the inspector's lazy assembly writes them when read, the same words */
	struct assembly lazy;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy(src, &lazy, &err), CS_OK);
	struct strbuf said = STRBUF_INIT;
	for (size_t i = 0; i < src->npieces; i++) {
		const char *now = asm_sentence(&lazy, (long)i, &said);
		if (!a.results[i].sentence) {
			assert_null(now);
			continue;
		}
		assert_non_null(now);
		assert_string_equal(now, a.results[i].sentence);
	}
	assert_null(lazy.results[support_piece(src, "z")].sentence); /* not written until read */
	sb_fini(&said);
	asm_fini(&lazy);
	asm_fini(&a);
	/* --include does not bring back an empty node */
	support_set(src, "include", "em");
	support_assemble(src, &a);
	assert_string_equal(reason_of(src, &a, "em"), "empty");
	asm_fini(&a);
	source_free(src);
	sb_fini(&n);
	sb_fini(&e);
}

static void test_merge_after_filter(void **state)
{
	(void)state;
	struct strbuf n = STRBUF_INIT, e = STRBUF_INIT;
	node(&n, "h1", 'h', "first", "");
	node(&n, "m1", 'm', "dropped reply", "\"excluded\":true");
	node(&n, "h2", 'h', "second", "");
	node(&n, "m2", 'm', "answer", "");
	edge(&e, "e1", "continuation", "m1", "{\"nodeId\":\"h1\"}");
	edge(&e, "e2", "continuation", "h2", "{\"nodeId\":\"m1\"}");
	edge(&e, "e3", "continuation", "m2", "{\"nodeId\":\"h2\"}");
	struct source *src = tree("\"rootNodeId\":\"h1\"", sb_str(&n), sb_str(&e), "\"activeNodeId\":\"m2\"", NULL);
	struct assembly a;
	support_assemble(src, &a);
	/* filter first, then merge: h1 and h2 become one user message of two blocks */
	assert_int_equal(a.nmessages, 2);
	assert_string_equal(a.messages[0].role, "user");
	assert_int_equal(a.messages[0].nblocks, 2);
	struct strbuf t = STRBUF_INIT;
	asm_block_text(&a, a.messages[0].first_block + 1, &t);
	assert_string_equal(sb_str(&t), "\n\nsecond"); /* the blank line belongs to the later block */
	assert_int_equal(a.blocks[a.messages[0].first_block + 1].budget_tokens, 2); /* 8 code points */
	assert_string_equal(support_prompt(&a), "first\n\nsecondanswer");
	sb_fini(&t);
	asm_fini(&a);
	source_free(src);
	sb_fini(&n);
	sb_fini(&e);
}

static void test_multi_source_order(void **state)
{
	(void)state;
	struct strbuf n = STRBUF_INIT, e = STRBUF_INIT;
	node(&n, "q", 'h', "look at this", "");
	node(&n, "img", 'h', "unused", "");
	node(&n, "ins", 'h', "  Answer in one line.  ", "");
	node(&n, "ans", 'm', "done", "");
	/* img's text is replaced by an image below */
	edge(&e, "e1", "continuation", "ans",
	     "{\"nodeId\":\"ins\",\"role\":\"instruction\"},{\"nodeId\":\"q\",\"role\":\"primary\"},"
	     "{\"nodeId\":\"img\",\"role\":\"context\"}");
	char *nodes = strdup(sb_str(&n));
	char *img = strstr(nodes, "{\"type\":\"text\",\"text\":\"unused\"}");
	assert_non_null(img);
	const char *image = "{\"type\":\"image\"}";
	memcpy(img, image, strlen(image));
	memset(img + strlen(image), ' ', strlen("{\"type\":\"text\",\"text\":\"unused\"}") - strlen(image));
	struct source *src = tree("\"rootNodeId\":\"q\",\"systemContext\":\"Tree context.\"", nodes, sb_str(&e),
				  "\"activeNodeId\":\"ans\"",
				  ",\"agents\":[{\"id\":\"m\",\"type\":\"model\",\"configuration\":{\"systemPrompt\":\" Agent prompt. \"}}]");
	struct assembly a;
	support_assemble(src, &a);
	/* system: agent, tree, instruction; then context before its primary */
	assert_string_equal(a.messages[0].role, "system");
	struct strbuf t = STRBUF_INIT;
	asm_block_text(&a, 0, &t);
	assert_string_equal(sb_str(&t), "Agent prompt.\n\nTree context.\n\nAnswer in one line.");
	assert_true(a.blocks[0].flags & BLOCK_BREAKPOINT);
	assert_true(in_prompt(src, &a, "ins"));
	assert_int_equal(a.results[support_piece(src, "ins")].block, 0);
	assert_int_equal(a.nmessages, 3);
	assert_string_equal(support_prompt(&a),
			    "Agent prompt.\n\nTree context.\n\nAnswer in one line.[image content]\n\nlook at thisdone");
	/* history (the merged user message) ends at a breakpoint, current does not */
	assert_true(a.blocks[2].flags & BLOCK_BREAKPOINT);
	assert_int_equal(a.blocks[3].layer[0], 2);
	assert_false(a.blocks[3].flags & BLOCK_BREAKPOINT);
	/* excluding the instruction takes it out of the system context */
	support_set(src, "exclude", "ins");
	asm_fini(&a);
	support_assemble(src, &a);
	sb_reset(&t);
	asm_block_text(&a, 0, &t);
	assert_string_equal(sb_str(&t), "Agent prompt.\n\nTree context.");
	sb_fini(&t);
	asm_fini(&a);
	source_free(src);
	free(nodes);
	sb_fini(&n);
	sb_fini(&e);
}

static void test_buffer_mode(void **state)
{
	(void)state;
	struct strbuf n = STRBUF_INIT, e = STRBUF_INIT;
	node(&n, "b1", 'h', "Once upon ", "");
	node(&n, "b2", 'm', "a time ", "");
	node(&n, "b3", 'm', "", "");
	node(&n, "ins", 'h', " Keep it short. ", "");
	edge(&e, "e1", "continuation", "b2", "{\"nodeId\":\"b1\"}");
	edge(&e, "e2", "continuation", "b3", "{\"nodeId\":\"b2\"},{\"nodeId\":\"ins\",\"role\":\"instruction\"}");
	const char *tail = ",\"workingBuffer\":\"there was\"";
	struct source *src = tree("\"rootNodeId\":\"b1\",\"mode\":\"buffer\",\"systemContext\":\"Fairy tales.\"",
				  sb_str(&n), sb_str(&e), "\"activeNodeId\":\"b3\"", tail);
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(a.shape, ASM_DOCUMENT);
	/* byte for byte, no separator, working buffer last, no system context */
	assert_string_equal(support_prompt(&a), "Once upon a time there was");
	assert_string_equal(reason_of(src, &a, "b3"), "empty");
	assert_string_equal(reason_of(src, &a, "ins"), "no-system-context");
	assert_string_equal(a.blocks[a.nblocks - 1].label, "working buffer");
	assert_int_equal(a.blocks[a.nblocks - 1].layer[0], 2);
	asm_fini(&a);
	source_free(src);
	src = tree("\"rootNodeId\":\"b1\",\"mode\":\"buffer\",\"systemContext\":\"Fairy tales.\","
		   "\"bufferModeSystemContext\":true",
		   sb_str(&n), sb_str(&e), "\"activeNodeId\":\"b3\"", tail);
	support_assemble(src, &a);
	assert_string_equal(support_prompt(&a), "Fairy tales.\n\nKeep it short.\n\nOnce upon a time there was");
	assert_true(in_prompt(src, &a, "ins"));
	asm_fini(&a);
	source_free(src);
	sb_fini(&n);
	sb_fini(&e);
}

static void test_instruction_on_path(void **state)
{
	(void)state;
	struct strbuf n = STRBUF_INIT, e = STRBUF_INIT;
	node(&n, "r", 'h', "rule: answer in French", "");
	node(&n, "a", 'm', "d'accord", "");
	node(&n, "q", 'h', "why?", "");
	edge(&e, "e1", "continuation", "a", "{\"nodeId\":\"r\"}");
	edge(&e, "e2", "continuation", "q", "{\"nodeId\":\"a\"},{\"nodeId\":\"r\",\"role\":\"instruction\"}");
	struct source *src = tree("\"rootNodeId\":\"r\"", sb_str(&n), sb_str(&e), "\"activeNodeId\":\"q\"", NULL);
	/* the path keeps all three nodes; the second use is a warning */
	assert_int_equal(src->npieces, 3);
	assert_string_equal(src->pieces[2].id, "q");
	assert_int_equal(src->nwarnings, 1);
	assert_non_null(strstr(src->warnings[0].text, "instruction source of edge e2"));
	source_free(src);
	sb_fini(&n);
	sb_fini(&e);
}

/* ---- strategies at their boundaries -------------------------------------- */

static void test_truncate_middle(void **state)
{
	(void)state;
	struct source *src = linear(6, NULL, NULL); /* 6 messages x 10 tokens */
	struct assembly a;
	support_set(src, "budget", "60");
	support_assemble(src, &a);
	assert_int_equal(a.budget.used, 60); /* fits exactly: nothing happens */
	assert_int_equal(a.flags, 0);
	assert_int_equal(a.nmessages, 6);
	asm_fini(&a);

	support_set(src, "budget", "59");
	support_assemble(src, &a);
	/* n2 goes (n1 and the last 4 are protected); "[1 earlier message truncated]" is 8 tokens */
	assert_true(a.flags & ASM_TRUNCATED);
	assert_false(a.flags & ASM_OVER_LIMIT);
	assert_string_equal(reason_of(src, &a, "n2"), "truncate-middle");
	assert_non_null(strstr(a.results[support_piece(src, "n2")].sentence, "over the budget by 1 token;"));
	assert_true(in_prompt(src, &a, "n1") && in_prompt(src, &a, "n3"));
	assert_int_equal(a.budget.used, 58);
	assert_true(a.blocks[1].flags & BLOCK_MARKER);
	assert_string_equal(a.messages[1].role, "user");
	asm_fini(&a);

	/* the protected part alone does not fit: over limit, shown, by how much */
	support_set(src, "budget", "57");
	support_assemble(src, &a);
	assert_true(a.flags & ASM_OVER_LIMIT);
	assert_false(a.flags & ASM_ERROR);
	assert_int_equal(a.over_by, 1);
	assert_non_null(a.state);
	asm_fini(&a);

	/* min-recent counts path nodes: 1 protects only n6, so n2..n4 can go */
	support_set(src, "min-recent", "1");
	support_set(src, "budget", "40");
	support_assemble(src, &a);
	assert_string_equal(reason_of(src, &a, "n2"), "truncate-middle");
	assert_string_equal(reason_of(src, &a, "n4"), "truncate-middle");
	assert_true(in_prompt(src, &a, "n5"));
	assert_false(a.flags & ASM_OVER_LIMIT);
	asm_fini(&a);

	/* min-recent 0 still keeps the last message (and the first) */
	support_set(src, "min-recent", "0");
	support_set(src, "budget", "20");
	support_assemble(src, &a);
	assert_true(in_prompt(src, &a, "n1"));
	assert_true(in_prompt(src, &a, "n6"));
	assert_string_equal(reason_of(src, &a, "n5"), "truncate-middle");
	assert_true(a.flags & ASM_OVER_LIMIT); /* 10 + 10 + a 8-token marker */
	assert_int_equal(a.over_by, 8);
	asm_fini(&a);
	source_free(src);
}

static void test_rolling_window(void **state)
{
	(void)state;
	struct source *src = linear(6, NULL, NULL);
	struct assembly a;
	support_set(src, "strategy", "rollingWindow");
	support_set(src, "budget", "60");
	support_assemble(src, &a);
	assert_int_equal(a.flags, 0); /* fits exactly */
	assert_true(in_prompt(src, &a, "n1"));
	asm_fini(&a);
	support_set(src, "budget", "59");
	support_assemble(src, &a);
	assert_string_equal(reason_of(src, &a, "n1"), "rolling-window");
	assert_true(in_prompt(src, &a, "n2"));
	assert_int_equal(a.budget.used, 50);
	assert_true(a.flags & ASM_TRUNCATED);
	for (size_t b = 0; b < a.nblocks; b++)
		assert_false(a.blocks[b].flags & BLOCK_MARKER); /* no marker in a window */
	asm_fini(&a);
	/* the last message alone is too big: kept, over limit */
	support_set(src, "budget", "9");
	support_assemble(src, &a);
	assert_true(in_prompt(src, &a, "n6"));
	assert_string_equal(reason_of(src, &a, "n5"), "rolling-window");
	assert_true(a.flags & ASM_OVER_LIMIT);
	assert_int_equal(a.over_by, 1);
	asm_fini(&a);
	source_free(src);
}

static void test_stop_at_limit_and_system_alone(void **state)
{
	(void)state;
	struct source *src = linear(4, NULL, ",\"preferences\":{\"truncationStrategy\":\"stopAtLimit\"}");
	struct assembly a;
	support_set(src, "budget", "40");
	support_assemble(src, &a);
	assert_int_equal(a.flags, 0);
	asm_fini(&a);
	support_set(src, "budget", "39");
	support_assemble(src, &a);
	assert_true(a.flags & ASM_ERROR);
	assert_true(a.flags & ASM_OVER_LIMIT);
	assert_false(a.flags & ASM_TRUNCATED);
	assert_int_equal(a.over_by, 1);
	assert_non_null(strstr(a.state, "--exclude"));
	for (int i = 0; i < 4; i++)
		assert_int_equal(a.results[i].outcome, OUTCOME_WHOLE);
	asm_fini(&a);
	source_free(src);

	/* a system context alone over the budget is an error, whatever the strategy */
	src = linear(2, ",\"systemContext\":\"" X40 X40 "\"", NULL); /* 20 tokens */
	support_set(src, "budget", "19");
	support_assemble(src, &a);
	assert_true(a.flags & ASM_ERROR);
	assert_non_null(strstr(a.state, "system context alone"));
	asm_fini(&a);
	source_free(src);
}

/* ---- loom-aware, options, limits, time ----------------------------------- */

static void test_loom_aware(void **state)
{
	(void)state;
	struct source *src = tree("\"rootNodeId\":\"r\",\"title\":\"T\"", BRANCHY_NODES, BRANCHY_EDGES,
				  "\"nodeIds\":[\"r\",\"a\",\"c\"]", NULL);
	struct assembly plain, aware;
	support_assemble(src, &plain);
	struct strbuf v = STRBUF_INIT;
	assert_int_equal(support_get(src, "loom-aware", &v), CS_OK);
	assert_string_equal(sb_str(&v), "false");
	support_set(src, "loom-aware", "on");
	sb_reset(&v);
	support_get(src, "loom-aware", &v);
	assert_string_equal(sb_str(&v), "true");
	support_assemble(src, &aware);
	const char *p = support_prompt(&aware);
	assert_non_null(strstr(p, "[r] human \xC2\xB7 5 minutes ago\n2 continuations \xC2\xB7 0 annotations\n---\nroot"));
	assert_non_null(strstr(p, "=== Loom Context ===\nTree: T (dialogue mode)\nNodes: 4 \xC2\xB7 branch points: 1"));
	assert_non_null(strstr(p, "Position: r > a > c\n"));
	/* the extensions cost tokens, counted in the budget */
	assert_true(aware.budget.used > plain.budget.used);
	assert_int_equal(aware.budget.used, aware.total_tokens);
	/* the Loom Context block opens the current message */
	const struct message *last = &aware.messages[aware.nmessages - 1];
	assert_string_equal(aware.blocks[last->first_block].label, "loom context");
	asm_fini(&plain);
	asm_fini(&aware);

	struct cs_error err;
	assert_int_equal(support_set_option(src, "loom-aware", "maybe", &err), CS_EUSAGE);
	assert_int_equal(support_set_option(src, "min-recent", "-1", &err), CS_EUSAGE);
	assert_int_equal(support_set_option(src, "min-recent", "7", &err), CS_OK);
	sb_reset(&v);
	support_get(src, "min-recent", &v);
	assert_string_equal(sb_str(&v), "7");
	sb_fini(&v);
	source_free(src);
}

static void test_limits_and_time(void **state)
{
	(void)state;
	struct source *src = linear(2, NULL, ",\"model\":{\"ref\":\"anthropic:claude-opus-4-20250514\"}");
	const struct loom *m = src->model;
	assert_int_equal(m->limit, 200000);
	assert_string_equal(m->limit_source, "the model table");
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(a.budget.usable, 200000 - 1024);
	asm_fini(&a);
	source_free(src);
	src = linear(2, NULL, ",\"model\":{\"ref\":\"x\",\"contextLimit\":5000},\"preferences\":{\"tokenBuffer\":100}");
	support_assemble(src, &a);
	assert_int_equal(a.budget.limit, 5000);
	assert_int_equal(a.budget.usable, 4900);
	asm_fini(&a);
	source_free(src);

	/* a null contextLimit is absent; a zero one is wrong */
	src = linear(2, NULL, ",\"model\":{\"ref\":\"openai:gpt-4o\",\"contextLimit\":null}");
	assert_int_equal(((const struct loom *)src->model)->limit, 128000);
	source_free(src);
	support_write(support_dir, "zero.json", "{\"loomTree\":{\"rootNodeId\":\"r\"},\"nodes\":[{\"id\":\"r\",\"authorType\":\"human\","
					"\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],\"edges\":[],"
					"\"model\":{\"contextLimit\":0},\"path\":{}}");
	struct cs_error err;
	support_load_error(support_path(support_dir, "zero.json"), "loom", &err);
	assert_string_equal(err.path, "model.contextLimit");

	long long ms;
	assert_true(loom_parse_time("2026-01-30T10:00:00Z", &ms));
	assert_true(ms == 1769767200000LL);
	assert_true(loom_parse_time("2026-01-30T12:00:00.250+02:00", &ms));
	assert_true(ms == 1769767200250LL);
	assert_false(loom_parse_time("2026-13-30T10:00:00Z", &ms));
	assert_false(loom_parse_time("yesterday", &ms));
	char buf[32];
	assert_string_equal(loom_relative_time(buf, 0, 59000), "just now");
	assert_string_equal(loom_relative_time(buf, 0, 60000), "1 minute ago");
	assert_string_equal(loom_relative_time(buf, 0, 3 * 86400000LL), "3 days ago");
}

/* Every allocation failing in turn gives a clean CS_ENOMEM, never a crash or
 * a leak (ASan's leak check runs over the whole suite). */
static void test_out_of_memory(void **state)
{
	(void)state;
	const char *files[] = { "samples/loom/parser-debug.json", "samples/loom/postmortem-buffer.json" };
	for (size_t f = 0; f < 2; f++) {
		bool loaded = false;
		for (long n = 1; n < 5000 && !loaded; n++) {
			struct source *src = NULL;
			struct cs_error err;
			cs_error_clear(&err);
			cs_alloc_fail_from(n);
			int rc = source_load(files[f], "loom", &src, &err);
			cs_alloc_fail_from(0);
			if (rc == CS_ESYNTAX && (strstr(err.message, "invalid JSON") || strstr(err.message, "ends too early"))) {
				/* json/doc.c cannot tell cJSON running out of memory
				 * from bad JSON (cJSON gives no reason): a core issue,
				 * reported; the loader's own allocations follow */
				assert_null(src);
				continue;
			}
			if (rc != CS_OK) {
				if (rc != CS_ENOMEM)
					fail_msg("allocation %ld failing gave %s: %s", n, cs_status_name((enum cs_status)rc), err.message);
				assert_null(src);
				continue;
			}
			loaded = true;
			support_set(src, "loom-aware", "true");
			bool assembled = false;
			for (long k = 1; k < 5000 && !assembled; k++) {
				struct assembly a;
				cs_alloc_fail_from(k);
				rc = assemble(src, &a, &err);
				cs_alloc_fail_from(0);
				if (rc == CS_OK) {
					assembled = true;
					asm_fini(&a);
				} else {
					assert_int_equal(rc, CS_ENOMEM);
				}
			}
			assert_true(assembled);
			source_free(src);
		}
		assert_true(loaded);
	}
}

static void test_samples_load(void **state)
{
	(void)state;
	const char *samples[] = { "samples/loom/parser-debug.json", "samples/loom/long-session.json",
				  "samples/loom/postmortem-buffer.json" };
	for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
		struct source *src = support_load(samples[i], NULL); /* detected by its keys */
		assert_string_equal(src->kind->name, "loom");
		struct assembly a;
		support_assemble(src, &a);
		assert_true(a.nblocks > 0);
		asm_fini(&a);
		source_free(src);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_explicit),
		cmocka_unit_test(test_path_walk_up_and_selections),
		cmocka_unit_test(test_path_versions),
		cmocka_unit_test(test_path_cycles_and_roots),
		cmocka_unit_test(test_structural_errors),
		cmocka_unit_test(test_exclusion_reasons),
		cmocka_unit_test(test_merge_after_filter),
		cmocka_unit_test(test_multi_source_order),
		cmocka_unit_test(test_buffer_mode),
		cmocka_unit_test(test_instruction_on_path),
		cmocka_unit_test(test_truncate_middle),
		cmocka_unit_test(test_rolling_window),
		cmocka_unit_test(test_stop_at_limit_and_system_alone),
		cmocka_unit_test(test_loom_aware),
		cmocka_unit_test(test_limits_and_time),
		cmocka_unit_test(test_samples_load),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, support_dir_setup, support_dir_teardown);
}
