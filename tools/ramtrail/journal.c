// SPDX-License-Identifier: GPL-2.0
/*
 * One journal entry as journalctl -o json prints it: a JSON object on a
 * line, a member a field (journalctl(1), "json"). A value is a string, an
 * array of numbers 0 to 255 (a value that is not text, byte by byte), null
 * (a value too large to show) or an array of those (a field given several
 * times). The line comes from another machine's journal: this reader
 * keeps at most RT_JOURNAL_VALUE_MAX bytes of a value, nests at most
 * RT_JSON_DEPTH deep, and refuses a line that is not one such object
 * whole. No library: the tool builds with the C library alone.
 */
#include <string.h>
#include "ramtrail.h"

/* Arrays and objects in a value we skip; journalctl nests two deep. */
#define RT_JSON_DEPTH	8

struct rt_json {
	const char *p;
	const char *end;
};

static void rt_json_blank(struct rt_json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

/* Is the next byte @c? Then step over it. */
static bool rt_json_eat(struct rt_json *j, char c)
{
	rt_json_blank(j);
	if (j->p >= j->end || *j->p != c)
		return false;
	j->p++;
	return true;
}

static bool rt_json_hex4(struct rt_json *j, u32 *v)
{
	int i;

	if (j->end - j->p < 4)
		return false;
	for (*v = 0, i = 0; i < 4; i++) {
		char c = *j->p++;

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*v |= (c | 0x20) - 'a' + 10;
		else
			return false;
	}
	return true;
}

/*
 * A \u escape's code point as one byte: itself below 0x80, else '?' (the
 * fields we read are ASCII; what we print of the others is '?' anyway).
 * A surrogate must come in a pair, high then low.
 */
static bool rt_json_unicode(struct rt_json *j, unsigned char *c)
{
	u32 u, low;

	if (!rt_json_hex4(j, &u) || (u >= 0xdc00 && u < 0xe000))
		return false;
	if (u >= 0xd800 && u < 0xdc00) {
		if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
			return false;
		j->p += 2;
		if (!rt_json_hex4(j, &low) || low < 0xdc00 || low >= 0xe000)
			return false;
	}
	*c = u < 0x80 ? u : '?';
	return true;
}

/*
 * A string: its first @max bytes decoded into @out (NUL-terminated there,
 * if @out), its decoded length in @len, however long.
 */
static bool rt_json_string(struct rt_json *j, char *out, size_t max,
			   size_t *len)
{
	static const char esc[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	const char *e;
	size_t n = 0;

	if (!rt_json_eat(j, '"'))
		return false;
	while (j->p < j->end) {
		unsigned char c = *j->p++;

		if (c == '"') {
			if (out)
				out[n < max ? n : max] = 0;
			*len = n;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (j->p >= j->end)
				return false;
			c = *j->p++;
			if (c == 'u') {
				if (!rt_json_unicode(j, &c))
					return false;
			} else {
				e = c ? strchr(esc, c) : NULL;
				if (!e || (e - esc) % 2)
					return false;
				c = e[1];
			}
		}
		if (out && n < max)
			out[n] = c;
		n++;
	}
	return false;
}

/* A number's token; its value if it is a byte (0 to 255, digits alone). */
static bool rt_json_number(struct rt_json *j, int *byte)
{
	const char *start = j->p;
	bool digits = false;
	int v = 0;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		v = v < 1000 ? v * 10 + *j->p - '0' : v;
		digits = true;
		j->p++;
	}
	if (!digits)
		return false;
	*byte = *start != '-' && j->p - start <= 3 && v <= 255 ? v : -1;
	if (j->p < j->end && *j->p == '.') {
		*byte = -1;
		for (j->p++, digits = false; j->p < j->end &&
		     *j->p >= '0' && *j->p <= '9'; j->p++)
			digits = true;
		if (!digits)
			return false;
	}
	if (j->p < j->end && (*j->p | 0x20) == 'e') {
		*byte = -1;
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		for (digits = false; j->p < j->end &&
		     *j->p >= '0' && *j->p <= '9'; j->p++)
			digits = true;
		if (!digits)
			return false;
	}
	return true;
}

static bool rt_json_word(struct rt_json *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

/* Step over any value, @depth arrays or objects deep at most. */
static bool rt_json_skip(struct rt_json *j, int depth)
{
	size_t len;
	int byte;
	char close;

	rt_json_blank(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '"':
		return rt_json_string(j, NULL, 0, &len);
	case 't':
		return rt_json_word(j, "true");
	case 'f':
		return rt_json_word(j, "false");
	case 'n':
		return rt_json_word(j, "null");
	case '[':
	case '{':
		break;
	default:
		return rt_json_number(j, &byte);
	}
	if (!depth)
		return false;
	close = *j->p++ == '[' ? ']' : '}';
	if (rt_json_eat(j, close))
		return true;
	do {
		if (close == '}' && (!rt_json_string(j, NULL, 0, &len) ||
				     !rt_json_eat(j, ':')))
			return false;
		if (!rt_json_skip(j, depth - 1))
			return false;
	} while (rt_json_eat(j, ','));
	return rt_json_eat(j, close);
}

/*
 * An array: a value's bytes (numbers 0 to 255; more than @f can keep are
 * counted, cut), several values (strings, arrays, nulls), or else a value
 * we do not read.
 */
static bool rt_json_array(struct rt_json *j, struct rt_journal_field *f)
{
	bool bytes = true, many = true;
	int byte;

	j->p++;		/* '[' */
	f->kind = RT_JV_OTHER;
	if (rt_json_eat(j, ']'))
		return true;
	do {
		rt_json_blank(j);
		if (j->p < j->end && (*j->p == '-' ||
				      (*j->p >= '0' && *j->p <= '9'))) {
			many = false;
			if (!rt_json_number(j, &byte))
				return false;
			if (byte < 0)
				bytes = false;
			else if (f->len < RT_JOURNAL_VALUE_MAX)
				f->value[f->len] = byte;
			f->len++;
			continue;
		}
		bytes = false;
		if (j->p < j->end && *j->p != '"' && *j->p != '[' &&
		    *j->p != 'n')
			many = false;
		if (!rt_json_skip(j, RT_JSON_DEPTH))
			return false;
	} while (rt_json_eat(j, ','));
	if (!rt_json_eat(j, ']'))
		return false;
	if (bytes) {
		f->kind = RT_JV_BYTES;
		f->cut = f->len > RT_JOURNAL_VALUE_MAX;
		if (f->cut)
			f->len = RT_JOURNAL_VALUE_MAX;
		f->value[f->len] = 0;
	} else {
		f->kind = many ? RT_JV_MANY : RT_JV_OTHER;
		f->len = 0;
		f->value[0] = 0;
	}
	return true;
}

static bool rt_json_value(struct rt_json *j, struct rt_journal_field *f)
{
	rt_json_blank(j);
	f->len = 0;
	f->cut = false;
	f->value[0] = 0;
	if (j->p < j->end && *j->p == '"') {
		f->kind = RT_JV_STRING;
		if (!rt_json_string(j, f->value, RT_JOURNAL_VALUE_MAX, &f->len))
			return false;
		f->cut = f->len > RT_JOURNAL_VALUE_MAX;
		if (f->cut)
			f->len = RT_JOURNAL_VALUE_MAX;
		return true;
	}
	if (j->p < j->end && *j->p == '[')
		return rt_json_array(j, f);
	f->kind = j->p < j->end && *j->p == 'n' ? RT_JV_NULL : RT_JV_OTHER;
	return rt_json_skip(j, RT_JSON_DEPTH);
}

/**
 * rt_journal_entry() - read one line of journalctl -o json
 * @line: the line, without its newline; need not be NUL-terminated
 * @len: bytes at @line
 * @f: where each field is read, in turn
 * @fn: called with @ctx and @f for each field, in the line's order
 * @ctx: for @fn
 *
 * @fn sees every field before the line is known whole: what it notes
 * counts only if this returns true.
 *
 * Return: the line is one JSON object and nothing else.
 */
bool rt_journal_entry(const char *line, size_t len, struct rt_journal_field *f,
		      void (*fn)(void *ctx, const struct rt_journal_field *f),
		      void *ctx)
{
	struct rt_json j = { line, line + len };

	if (!rt_json_eat(&j, '{'))
		return false;
	if (!rt_json_eat(&j, '}')) {
		do {
			if (!rt_json_string(&j, f->key, RT_JOURNAL_KEY_MAX,
					    &f->key_len) ||
			    !rt_json_eat(&j, ':') || !rt_json_value(&j, f))
				return false;
			fn(ctx, f);
		} while (rt_json_eat(&j, ','));
		if (!rt_json_eat(&j, '}'))
			return false;
	}
	rt_json_blank(&j);
	return j.p == j.end;
}
