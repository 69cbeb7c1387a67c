/*
 * resyntax.c: RE2 syntax as Go's regexp parses it (see resyntax.h).
 *
 * One pass over the pattern, no compiling: glibc's regcomp, which an
 * earlier check used, speaks POSIX ERE (it refuses "(?i)loss" and
 * "(?:a|b)", which Go takes) and its compile time grows exponentially
 * on nested stars of an empty-width match: the 14 bytes
 * "(((\b)*)*){10}" held a CPU for minutes.  RE2 itself is C++; the
 * checker below mirrors Go's regexp/syntax parser (parse.go) instead,
 * error words included.
 */
#include <stdio.h>
#include <string.h>

#include "lib/resyntax.h"
#include "lib/url.h"

enum re_prev { PREV_NONE, PREV_ATOM, PREV_REPEAT };

struct re_parse {
	const char *p; /* the next byte */
	char *why;
	size_t whylen;
	enum re_prev prev; /* what a repetition would apply to */
	long lastprod; /* product of counts in the last atom */
	const char *lastop; /* where that repetition began */
	long maxprod[SW_RE_MAX_DEPTH + 1]; /* per open group */
	int depth;
};

static const char *const re_posix[] = { "alnum", "alpha", "ascii", "blank",
	"cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper",
	"word", "xdigit", NULL };

/* Go's unicode.Categories and unicode.Scripts (Unicode 15.0), and Any. */
static const char *const re_unicode[] = { "Any", "C", "Cc", "Cf", "Co", "Cs",
	"L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd",
	"Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc",
	"Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs", "Adlam", "Ahom",
	"Anatolian_Hieroglyphs", "Arabic", "Armenian", "Avestan", "Balinese",
	"Bamum", "Bassa_Vah", "Batak", "Bengali", "Bhaiksuki", "Bopomofo",
	"Brahmi", "Braille", "Buginese", "Buhid", "Canadian_Aboriginal",
	"Carian", "Caucasian_Albanian", "Chakma", "Cham", "Cherokee",
	"Chorasmian", "Common", "Coptic", "Cuneiform", "Cypriot",
	"Cypro_Minoan", "Cyrillic", "Deseret", "Devanagari", "Dives_Akuru",
	"Dogra", "Duployan", "Egyptian_Hieroglyphs", "Elbasan", "Elymaic",
	"Ethiopic", "Georgian", "Glagolitic", "Gothic", "Grantha", "Greek",
	"Gujarati", "Gunjala_Gondi", "Gurmukhi", "Han", "Hangul",
	"Hanifi_Rohingya", "Hanunoo", "Hatran", "Hebrew", "Hiragana",
	"Imperial_Aramaic", "Inherited", "Inscriptional_Pahlavi",
	"Inscriptional_Parthian", "Javanese", "Kaithi", "Kannada", "Katakana",
	"Kawi", "Kayah_Li", "Kharoshthi", "Khitan_Small_Script", "Khmer",
	"Khojki", "Khudawadi", "Lao", "Latin", "Lepcha", "Limbu", "Linear_A",
	"Linear_B", "Lisu", "Lycian", "Lydian", "Mahajani", "Makasar",
	"Malayalam", "Mandaic", "Manichaean", "Marchen", "Masaram_Gondi",
	"Medefaidrin", "Meetei_Mayek", "Mende_Kikakui", "Meroitic_Cursive",
	"Meroitic_Hieroglyphs", "Miao", "Modi", "Mongolian", "Mro", "Multani",
	"Myanmar", "Nabataean", "Nag_Mundari", "Nandinagari", "New_Tai_Lue",
	"Newa", "Nko", "Nushu", "Nyiakeng_Puachue_Hmong", "Ogham", "Ol_Chiki",
	"Old_Hungarian", "Old_Italic", "Old_North_Arabian", "Old_Permic",
	"Old_Persian", "Old_Sogdian", "Old_South_Arabian", "Old_Turkic",
	"Old_Uyghur", "Oriya", "Osage", "Osmanya", "Pahawh_Hmong", "Palmyrene",
	"Pau_Cin_Hau", "Phags_Pa", "Phoenician", "Psalter_Pahlavi", "Rejang",
	"Runic", "Samaritan", "Saurashtra", "Sharada", "Shavian", "Siddham",
	"SignWriting", "Sinhala", "Sogdian", "Sora_Sompeng", "Soyombo",
	"Sundanese", "Syloti_Nagri", "Syriac", "Tagalog", "Tagbanwa", "Tai_Le",
	"Tai_Tham", "Tai_Viet", "Takri", "Tamil", "Tangsa", "Tangut", "Telugu",
	"Thaana", "Thai", "Tibetan", "Tifinagh", "Tirhuta", "Toto", "Ugaritic",
	"Vai", "Vithkuqi", "Wancho", "Warang_Citi", "Yezidi", "Yi",
	"Zanabazar_Square", NULL };

/*
 * Record Go's error: its code and the text at fault, s[0..n) widened to
 * whole characters.  The words are quoted to users in JSON, so a cut
 * to whylen falls between characters too.
 */
static int
re_fail(struct re_parse *ps, const char *code, const char *s, size_t n)
{
	size_t len, lead;

	while (s[n] != '\0' && ((unsigned char)s[n] & 0xc0) == 0x80)
		n++;
	if (ps->why == NULL || ps->whylen == 0)
		return -1;
	if ((size_t)snprintf(ps->why, ps->whylen, "%s: `%.*s`", code, (int)n,
		s) < ps->whylen)
		return -1;
	/* Cut: drop the last character if snprintf left it short. */
	len = ps->whylen - 1;
	lead = len;
	while (lead > 0 && ((unsigned char)ps->why[lead - 1] & 0xc0) == 0x80)
		lead--;
	if (lead > 0 && (unsigned char)ps->why[lead - 1] >= 0xc0) {
		unsigned char c = (unsigned char)ps->why[lead - 1];
		size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

		if (len - (lead - 1) < want)
			ps->why[lead - 1] = '\0';
	}
	return -1;
}

static int
re_in(const char *const *list, const char *s, size_t n)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == n && memcmp(*list, s, n) == 0)
			return 1;
	return 0;
}

static int
re_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

static int
re_isalnum(int c)
{
	return re_isdigit(c) || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z');
}

/*
 * Decode the UTF-8 character at s into *cp; its length, or 0 when the
 * bytes are not UTF-8 (overlong forms and surrogates included).
 */
static size_t
re_utf8(const char *s, long *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n, i;
	long c, min;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2;
		c = u[0] & 0x1f;
		min = 0x80;
	} else if ((u[0] & 0xf0) == 0xe0) {
		n = 3;
		c = u[0] & 0x0f;
		min = 0x800;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		c = u[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Bytes of the character at s: 0 at the end, 1 for a stray byte. */
static size_t
re_runelen(const char *s)
{
	long ignored;
	size_t n;

	if (*s == '\0')
		return 0;
	return (n = re_utf8(s, &ignored)) > 0 ? n : 1;
}

/*
 * A decimal count of a repetition; -1 when there is none (a leading
 * zero before another digit makes the "{" a literal, as in Go), and
 * 1001 for any count past 1000.
 */
static long
re_count(const char **sp)
{
	const char *s = *sp;
	long n = 0;

	if (!re_isdigit(*s) || (s[0] == '0' && re_isdigit(s[1])))
		return -1;
	for (; re_isdigit(*s); s++)
		if (n <= SW_RE_MAX_REPEAT)
			n = n * 10 + (*s - '0');
	*sp = s;
	return n > SW_RE_MAX_REPEAT ? SW_RE_MAX_REPEAT + 1 : n;
}

/*
 * "{n}", "{n,}" or "{n,m}" at s: 1 with *min, *max (-1 for none) and
 * *end set; 0 when it is none of them (the "{" is then a literal).
 */
static int
re_braces(const char *s, long *min, long *max, const char **end)
{
	s++;
	if ((*min = re_count(&s)) < 0)
		return 0;
	if (*s == ',') {
		s++;
		if (*s == '}')
			*max = -1;
		else if ((*max = re_count(&s)) < 0)
			return 0;
	} else
		*max = *min;
	if (*s != '}')
		return 0;
	*end = s + 1;
	return 1;
}

/*
 * The escape at ps->p (the byte after the backslash), as a character;
 * the ones outside a class only (\b, \B, \A, \z, \Q) are the caller's.
 * *cp is the character for a range's ends.
 */
static int
re_escape(struct re_parse *ps, const char *bs, long *cp)
{
	const char *s = ps->p, *bad;
	long c;
	int d, i;

	switch (*s) {
	case '\0':
		return re_fail(
		    ps, "trailing backslash at end of expression", "", 0);
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
		/* A lone digit would be a backreference: Go has none. */
		if (s[1] < '0' || s[1] > '7')
			break;
		/* FALLTHROUGH */
	case '0':
		c = s[0] - '0';
		for (i = 1; i < 3 && s[i] >= '0' && s[i] <= '7'; i++)
			c = c * 8 + (s[i] - '0');
		ps->p = s + i;
		*cp = c;
		return 0;
	case 'x':
		/* On a refusal Go quotes what it read: up to the rune at
		 * fault, so bad ends there. */
		if (s[1] == '{') {
			c = 0;
			for (i = 2; (d = sw_hex_digit(s[i])) >= 0; i++)
				if ((c = c * 16 + d) > 0x10ffff)
					break;
			if (i > 2 && s[i] == '}') {
				ps->p = s + i + 1;
				*cp = c;
				return 0;
			}
			bad = s + i + (s[i] != '\0');
		} else if (s[1] == '\0') {
			bad = s + 1;
		} else if (sw_hex_digit(s[1]) < 0 || sw_hex_digit(s[2]) < 0) {
			/* two runes read, or what there was */
			bad = s + 1 + re_runelen(s + 1);
			bad += re_runelen(bad);
		} else {
			ps->p = s + 3;
			*cp = sw_hex_digit(s[1]) * 16 + sw_hex_digit(s[2]);
			return 0;
		}
		return re_fail(
		    ps, "invalid escape sequence", bs, (size_t)(bad - bs));
	case 'a':
		*cp = 7;
		ps->p = s + 1;
		return 0;
	case 'f':
		*cp = 12;
		ps->p = s + 1;
		return 0;
	case 'n':
		*cp = 10;
		ps->p = s + 1;
		return 0;
	case 'r':
		*cp = 13;
		ps->p = s + 1;
		return 0;
	case 't':
		*cp = 9;
		ps->p = s + 1;
		return 0;
	case 'v':
		*cp = 11;
		ps->p = s + 1;
		return 0;
	default:
		/* ASCII punctuation (and space) escapes itself. */
		if ((unsigned char)*s < 0x80 && !re_isalnum(*s)) {
			*cp = (unsigned char)*s;
			ps->p = s + 1;
			return 0;
		}
		break;
	}
	{
		size_t n = 1;
		long ignored;

		if ((unsigned char)*s >= 0x80)
			n = re_utf8(s, &ignored);
		return re_fail(ps, "invalid escape sequence", bs,
		    (size_t)(s - bs) + (n > 0 ? n : 1));
	}
}

/* \d \D \s \S \w \W at ps->p: 1 and consumed, or 0. */
static int
re_perl_class(struct re_parse *ps)
{
	if (*ps->p != '\0' && strchr("dDsSwW", *ps->p) != NULL) {
		ps->p++;
		return 1;
	}
	return 0;
}

/* \p or \P at ps->p: 1 consumed, 0 not one, -1 an unknown name. */
static int
re_unicode_class(struct re_parse *ps, const char *bs)
{
	const char *s = ps->p, *name, *end;
	size_t n;
	long ignored;

	if (*s != 'p' && *s != 'P')
		return 0;
	if (s[1] == '{') {
		if ((end = strchr(s + 2, '}')) == NULL)
			return re_fail(ps, "invalid character class range", bs,
			    strlen(bs));
		name = s + 2;
		if (*name == '^')
			name++;
		n = (size_t)(end - name);
		ps->p = end + 1;
	} else {
		if (s[1] == '\0')
			return re_fail(ps, "invalid character class range", bs,
			    (size_t)(s + 1 - bs));
		name = s + 1;
		n = re_utf8(name, &ignored);
		ps->p = name + (n > 0 ? n : 1);
	}
	if (n == 0 || !re_in(re_unicode, name, n))
		return re_fail(ps, "invalid character class range", bs,
		    (size_t)(ps->p - bs));
	return 1;
}

/* A character class at ps->p, just past its "[". */
static int
re_class(struct re_parse *ps)
{
	const char *open = ps->p - 1, *at, *colon;
	long lo, hi;
	size_t n;
	int first = 1, rc;

	if (*ps->p == '^')
		ps->p++;
	while (*ps->p != ']' || first) {
		if (*ps->p == '\0')
			return re_fail(
			    ps, "missing closing ]", open, strlen(open));
		at = ps->p;
		first = 0;
		/* [:alpha:] and [:^alpha:] */
		if (at[0] == '[' && at[1] == ':' &&
		    (colon = strstr(at + 2, ":]")) != NULL) {
			const char *name = at + 2 + (at[2] == '^');

			if (!re_in(re_posix, name, (size_t)(colon - name)))
				return re_fail(ps,
				    "invalid character class range", at,
				    (size_t)(colon + 2 - at));
			ps->p = colon + 2;
			continue;
		}
		if (at[0] == '\\') {
			ps->p = at + 1;
			if (re_perl_class(ps))
				continue;
			if ((rc = re_unicode_class(ps, at)) != 0) {
				if (rc < 0)
					return -1;
				continue;
			}
			if (re_escape(ps, at, &lo) < 0)
				return -1;
		} else {
			if ((n = re_utf8(at, &lo)) == 0)
				return re_fail(ps, "invalid UTF-8", "", 0);
			ps->p = at + n;
		}
		/* A range, unless the "-" ends the class. */
		if (ps->p[0] != '-' || ps->p[1] == ']' || ps->p[1] == '\0')
			continue;
		ps->p++;
		if (ps->p[0] == '\\') {
			const char *bs = ps->p;

			ps->p++;
			if (re_escape(ps, bs, &hi) < 0)
				return -1;
		} else {
			if ((n = re_utf8(ps->p, &hi)) == 0)
				return re_fail(ps, "invalid UTF-8", "", 0);
			ps->p += n;
		}
		if (hi < lo)
			return re_fail(ps, "invalid character class range", at,
			    (size_t)(ps->p - at));
	}
	ps->p++;
	return 0;
}

/*
 * The last atom is done with: its product of counts joins its group's.
 * Called as the next atom begins and at "|", "(" and ")".
 */
static void
re_fold(struct re_parse *ps)
{
	if (ps->lastprod > ps->maxprod[ps->depth])
		ps->maxprod[ps->depth] = ps->lastprod;
	ps->lastprod = 0;
}

/* An atom: what a repetition after it applies to. */
static void
re_atom(struct re_parse *ps, long prod)
{
	re_fold(ps);
	ps->prev = PREV_ATOM;
	ps->lastprod = prod;
}

/*
 * "*", "+", "?" or a count, the text op..end; a lazy "?" after it is
 * its own.  In Go's order: the count's size, a repetition of a
 * repetition, a missing argument, then counts nested past 1000.
 */
static int
re_repeat(
    struct re_parse *ps, const char *op, const char *end, long min, long max)
{
	long m;

	if (min > SW_RE_MAX_REPEAT || max > SW_RE_MAX_REPEAT ||
	    (max >= 0 && min > max))
		return re_fail(
		    ps, "invalid repeat count", op, (size_t)(end - op));
	if (*end == '?')
		end++;
	if (ps->prev == PREV_REPEAT)
		return re_fail(ps, "invalid nested repetition operator",
		    ps->lastop, (size_t)(end - ps->lastop));
	if (ps->prev == PREV_NONE)
		return re_fail(ps, "missing argument to repetition operator",
		    op, (size_t)(end - op));
	/* Go's repeatIsValid: counts multiply down through nesting; a
	 * {0} hides what it holds; a star, plus or "?" counts nothing. */
	if (max == 0)
		ps->lastprod = 1;
	else if (min >= 2 || max >= 2) {
		m = max < 0 ? min : max;
		if (ps->lastprod > SW_RE_MAX_REPEAT / m)
			return re_fail(
			    ps, "invalid repeat count", op, (size_t)(end - op));
		ps->lastprod *= m;
	}
	ps->p = end;
	ps->prev = PREV_REPEAT;
	ps->lastop = op;
	return 0;
}

/*
 * "(?" at open: 1 a group opens (non-capturing or named), 0 flags only,
 * -1 refused.  (?<name> is Go 1.22's spelling of (?P<name>; look-behind
 * "(?<=" is taken for a name, and refused as one, as Go does.
 */
static int
re_perl_group(struct re_parse *ps, const char *open)
{
	const char *s = open + 2, *name, *gt;
	int sign = 0, sawflag = 0;
	char c;

	if ((s[0] == 'P' && s[1] == '<' && s[2] != '\0') ||
	    (s[0] == '<' && s[1] != '\0')) {
		name = s + (s[0] == 'P' ? 2 : 1);
		if ((gt = strchr(name, '>')) == NULL)
			return re_fail(
			    ps, "invalid named capture", open, strlen(open));
		for (s = name; s < gt && (re_isalnum(*s) || *s == '_'); s++)
			;
		if (s == name || s != gt)
			return re_fail(ps, "invalid named capture", open,
			    (size_t)(gt + 1 - open));
		ps->p = gt + 1;
		return 1;
	}
	/* Flags of imsU, at most one "-" and a flag after it. */
	for (;;) {
		if ((c = *s) == '\0')
			break;
		s++;
		switch (c) {
		case 'i':
		case 'm':
		case 's':
		case 'U':
			sawflag = 1;
			continue;
		case '-':
			if (sign)
				break;
			sign = 1;
			sawflag = 0;
			continue;
		case ':':
		case ')':
			if (sign && !sawflag)
				break;
			ps->p = s;
			return c == ':';
		default:
			break;
		}
		break;
	}
	return re_fail(
	    ps, "invalid or unsupported Perl syntax", open, (size_t)(s - open));
}

int
sw_re_check(const char *pat, char *why, size_t whylen)
{
	struct re_parse ps;
	const char *at, *end;
	long min, max, cp;
	size_t n;
	int rc;

	memset(&ps, 0, sizeof(ps));
	ps.p = pat;
	ps.why = why;
	ps.whylen = whylen;
	if (why != NULL && whylen > 0)
		why[0] = '\0';
	ps.prev = PREV_NONE;
	while (*ps.p != '\0') {
		at = ps.p;
		switch (*at) {
		case '(':
			if (at[1] == '?') {
				if ((rc = re_perl_group(&ps, at)) < 0)
					return -1;
				if (rc == 0) {
					/* Flags alone: what came before may
					 * still be repeated, as in Go. */
					if (ps.prev == PREV_REPEAT)
						ps.prev = PREV_ATOM;
					continue;
				}
			} else
				ps.p = at + 1;
			if (ps.depth == SW_RE_MAX_DEPTH)
				return re_fail(&ps,
				    "expression nests too "
				    "deeply",
				    at, 1);
			re_fold(&ps);
			ps.maxprod[++ps.depth] = 1;
			ps.prev = PREV_NONE;
			continue;
		case ')':
			if (ps.depth == 0)
				return re_fail(
				    &ps, "unexpected )", pat, strlen(pat));
			ps.p = at + 1;
			re_fold(&ps);
			ps.depth--;
			re_atom(&ps, ps.maxprod[ps.depth + 1]);
			continue;
		case '|':
			ps.p = at + 1;
			re_fold(&ps);
			ps.prev = PREV_NONE;
			continue;
		case '*':
		case '+':
		case '?':
			if (re_repeat(&ps, at, at + 1, *at == '+',
				*at == '?' ? 1 : -1) < 0)
				return -1;
			continue;
		case '{':
			if (re_braces(at, &min, &max, &end)) {
				if (re_repeat(&ps, at, end, min, max) < 0)
					return -1;
				continue;
			}
			ps.p = at + 1;
			break;
		case '[':
			ps.p = at + 1;
			if (re_class(&ps) < 0)
				return -1;
			break;
		case '\\':
			ps.p = at + 1;
			if (at[1] == 'Q') {
				/* Literal text up to \E or the end. */
				if ((end = strstr(at + 2, "\\E")) == NULL)
					end = at + strlen(at);
				ps.p = *end != '\0' ? end + 2 : end;
				if (end == at + 2) {
					/* \Q\E: nothing, as flags alone */
					if (ps.prev == PREV_REPEAT)
						ps.prev = PREV_ATOM;
					continue;
				}
				break;
			}
			if (at[1] != '\0' && strchr("bBAz", at[1]) != NULL) {
				ps.p = at + 2;
				break;
			}
			if (re_perl_class(&ps))
				break;
			if ((rc = re_unicode_class(&ps, at)) < 0)
				return -1;
			if (rc > 0)
				break;
			if (re_escape(&ps, at, &cp) < 0)
				return -1;
			break;
		default:
			/* ^ $ . and literals */
			if ((n = re_utf8(at, &cp)) == 0)
				return re_fail(&ps, "invalid UTF-8", "", 0);
			ps.p = at + n;
			break;
		}
		re_atom(&ps, 1);
	}
	if (ps.depth > 0)
		return re_fail(&ps, "missing closing )", pat, strlen(pat));
	return 0;
}
