/* kinds/request/shape_list.h: the list of the request kind's log shapes
 * (ctxscope-formats(5) section 6b), in the order they are tried on a
 * record: the most particular first (a LiteLLM line has "response" too,
 * but never "request"). Each is one file that declares itself with
 * REQUEST_SHAPE (request.h): its reader, its name for --kind, its title
 * and its kind. A new shape is that file and one line here; the shape
 * table (shapes.c) and the table of kinds (src/kind.c) are made from it. */
#ifndef CTXSCOPE_REQUEST_SHAPE_LIST_H
#define CTXSCOPE_REQUEST_SHAPE_LIST_H

#define REQUEST_SHAPES(X) \
	X(har)             \
	X(anthropic_batch) \
	X(openai_batch)    \
	X(capture)         \
	X(litellm)

struct kind_ops;
#define REQUEST_SHAPE_KIND_DECL(id) extern const struct kind_ops id##_kind;
REQUEST_SHAPES(REQUEST_SHAPE_KIND_DECL)

#endif
