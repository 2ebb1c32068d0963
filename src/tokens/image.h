/* image.h: what an image in a prompt costs, by the provider's rule (one
 * place for every kind: provider requests and Claude Code sessions alike).
 * The size is read from the first bytes of its base64 data (PNG, GIF,
 * JPEG, WebP); an image is never counted as its base64 text. */
#ifndef CTXSCOPE_IMAGE_H
#define CTXSCOPE_IMAGE_H

#include <stdbool.h>

enum image_rule {
	IMAGE_ANTHROPIC,  /* scaled to a long edge of 1568 and 1,600 tokens at most, then width*height/750 */
	IMAGE_OPENAI,     /* gpt-4o's rule: 512-pixel tiles, 170 each plus 85 */
	IMAGE_OPENAI_LOW, /* detail "low": 85 */
};

/* Width and height of the PNG, GIF, JPEG or WebP whose base64 data is b64 (NULL
 * safe); false when neither can be read (then *wd and *ht are untouched). */
bool image_size(const char *b64, long *wd, long *ht);
/* Tokens of a wd x ht image under `rule` (enum image_rule). */
long image_tokens(int rule, long wd, long ht);

#endif
