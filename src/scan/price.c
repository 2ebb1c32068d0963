/* price.c: a scanned request's cost at its model's prices (scan.h), and
 * the small helpers the scan shares: the causes' names, a hash, a map. */
#include "scan/scan_priv.h"

#include "base/alloc.h"
#include "models.h"
#include "kinds/request/request.h"

#include <string.h>

static const char *const cause_names[] = {
#define SC_X_NAME(e, name, words) name,
	SCAN_CAUSES(SC_X_NAME)
#undef SC_X_NAME
};
static const char *const cause_words[] = {
#define SC_X_WORDS(e, name, words) words,
	SCAN_CAUSES(SC_X_WORDS)
#undef SC_X_WORDS
};

const char *scan_cause_name(int cause)
{
	return cause >= 0 && cause < SC_COUNT ? cause_names[cause] : "";
}

const char *scan_cause_words(int cause)
{
	return cause >= 0 && cause < SC_COUNT ? cause_words[cause] : "";
}

bool scan_prices(const char *model, struct scan_price *p)
{
	bool known = false;
	int provider = !strncmp(model, "gpt-", 4) || (model[0] == 'o' && model[1] >= '1' && model[1] <= '9')
			       ? REQ_OPENAI_CHAT : REQ_ANTHROPIC;
	const struct req_model_facts *f = request_model_facts(provider, model, &known);
	*p = (struct scan_price){ -1, -1, f->read, f->write_5m, f->write_1h, true };
	if (!known || f->price_per_mtok < 0)
		return false;
	p->input = f->price_per_mtok;
	const struct model_info *mi = model_lookup(model); /* the output price is the model table's */
	p->output = mi && mi->output >= 0 ? mi->output : 5 * f->price_per_mtok;
	return true;
}

void scan_price_request(struct scan_req *r)
{
	struct scan_price p;
	if (!r->model[0] || !scan_prices(r->model, &p)) {
		r->cost = r->waste_cost = -1;
		return;
	}
	long w1 = r->cache_write_1h > 0 ? r->cache_write_1h : 0;
	if (w1 > r->cache_write)
		w1 = r->cache_write;
	const char *said;
	double times = (r->batch ? 0.5 : 1.0) * (r->fast ? request_fast_rate(r->model, &said) : 1.0);
	if (times < 0) { /* fast mode on a model whose fast rate is not in the table */
		r->cost = r->waste_cost = -1;
		return;
	}
	double mt = 1e-6 * p.input * times;
	r->cost = mt * ((double)r->in + p.read_x * (double)r->cache_read + p.write5_x * (double)(r->cache_write - w1) +
			p.write1h_x * (double)w1) + 1e-6 * p.output * times * (double)r->output +
		  REQUEST_WEB_SEARCH_USD * (double)(r->web_searches > 0 ? r->web_searches : 0);
	double wx = w1 * 2 >= r->cache_write && r->cache_write > 0 ? p.write1h_x : p.write5_x;
	r->waste_cost = mt * ((wx - 1) * (double)r->unread + (wx - p.read_x) * (double)r->lost);
}

/* ---- FNV-1a 64, seeded ---- */
uint64_t scan_hash(const char *s, size_t n, uint64_t seed)
{
	uint64_t h = 1469598103934665603ULL ^ (seed * 0x9E3779B97F4A7C15ULL);
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	h ^= h >> 29;
	return h ? h : 1;
}

/* ---- u64 -> u32 ---- */
uint32_t u64map_get(const struct u64map *m, uint64_t k)
{
	if (!m->cap)
		return UINT32_MAX;
	k = k ? k : 1;
	for (size_t i = (size_t)(k * 0x9E3779B97F4A7C15ULL >> 17) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k)
			return m->vals[i];
		if (!m->keys[i])
			return UINT32_MAX;
	}
}

static bool grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	uint64_t *keys = cs_calloc(cap, sizeof *keys);
	uint32_t *vals = keys ? cs_malloc(cap * sizeof *vals) : NULL;
	if (!vals) {
		cs_free(keys);
		return false;
	}
	for (size_t j = 0; j < m->cap; j++) {
		if (!m->keys[j])
			continue;
		size_t i = (size_t)(m->keys[j] * 0x9E3779B97F4A7C15ULL >> 17) & (cap - 1);
		while (keys[i])
			i = (i + 1) & (cap - 1);
		keys[i] = m->keys[j];
		vals[i] = m->vals[j];
	}
	cs_free(m->keys);
	cs_free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return true;
}

bool u64map_put(struct u64map *m, uint64_t k, uint32_t v)
{
	k = k ? k : 1;
	if ((m->n + 1) * 4 > m->cap * 3 && !grow(m))
		return false;
	size_t i = (size_t)(k * 0x9E3779B97F4A7C15ULL >> 17) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != k)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
	return true;
}

void u64map_fini(struct u64map *m)
{
	cs_free(m->keys);
	cs_free(m->vals);
	memset(m, 0, sizeof *m);
}
