/* test-resyntax.c: sw_re_check takes what Go's regexp.Compile takes and
 * refuses what it refuses, in Go's words, and in linear time on the
 * patterns that held glibc's regcomp for minutes. */
#include <string.h>
#include <time.h>

#include "lib/resyntax.h"
#include "t/tap.h"

static const char *const valid[] = { "", "a", ".*Loss:.*",
	".*step [0-9]+(/[0-9]+)? .*loss[=:].*", "(?i)loss", "(?:a|b)",
	"(?P<loss>[0-9.]+)", "(?<x>a)", "(?)", "(?i-s:x)", "(?-i)x", "(?U)a*",
	"(?ims)^a$", "a*?", "a+?", "a??", "a{2}?", "a{2,}", "a{2,5}", "a{1000}",
	"a{0,1000}", "(a{10}){100}", "((a{10}){10}){10}", "((a{500}){0}){3}",
	"(a{1000})*", "a{,5}", "a{01}", "a{2", "{", "}", "]", "x{",
	"\\d+\\s\\w\\D\\S\\W", "\\pL", "\\p{Greek}", "\\p{^Greek}", "\\PL",
	"\\p{Any}", "\\pN+", "[\\p{Han}a-z]", "[[:alpha:]]", "[[:^digit:]_]",
	"[]a]", "[^]a]", "[a-]", "[-a]", "[a-z-9]", "[\\x00-\\x{10FFFF}]",
	"[\\d\\s]", "[\\]\\[]", "\\Q*+?(\\E+", "\\Q\\E", "\\Q",
	"\\x41\\x{1F600}", "\\0\\012\\101\\17", "\\.\\*\\_\\ \\-",
	"\\a\\f\\n\\r\\t\\v", "^$", "^*", "$+", "(\\b)*", "(((\\b)*)*){10}",
	"((^)*)*", "\\A\\z\\b\\B", "a|", "|", "()", "(|)", "(a)(b)",
	"\xc3\xa9+", "[\xc3\xa9-\xc3\xbc]", "x{0}", "a(?i)*", "a*(?i)*",
	"(?P<a>x)(?P<a>y)", NULL };

static const struct {
	const char *pat;
	const char *why; /* Go's words, or NULL for any */
} invalid[] = { { "(", "missing closing ): `(`" },
	{ "(a|b", "missing closing ): `(a|b`" }, { ")", "unexpected ): `)`" },
	{ "a)", "unexpected ): `a)`" },
	{ "*", "missing argument to repetition operator: `*`" },
	{ "+a", "missing argument to repetition operator: `+`" },
	{ "a|*", "missing argument to repetition operator: `*`" },
	{ "(*)", "missing argument to repetition operator: `*`" },
	{ "{2}", "missing argument to repetition operator: `{2}`" },
	{ "(?i)*", "missing argument to repetition operator: `*`" },
	{ "a**", "invalid nested repetition operator: `**`" },
	{ "a*+", "invalid nested repetition operator: `*+`" },
	{ "a+*", "invalid nested repetition operator: `+*`" },
	{ "a*??", "invalid nested repetition operator: `*??`" },
	{ "a{2}{3}", "invalid nested repetition operator: `{2}{3}`" },
	{ "a{2}*", "invalid nested repetition operator: `{2}*`" },
	{ "a*{2}", "invalid nested repetition operator: `*{2}`" },
	{ "((\\b)*)*{10}", "invalid nested repetition operator: `*{10}`" },
	{ "a+++++++++++++++++++++++++++++++++++++++", NULL },
	{ "a{1001}", "invalid repeat count: `{1001}`" },
	{ "a{2,1}", "invalid repeat count: `{2,1}`" },
	{ "a{100000000000}", "invalid repeat count: `{100000000000}`" },
	{ "a{0,1001}", "invalid repeat count: `{0,1001}`" },
	{ "(a{500}){3}", "invalid repeat count: `{3}`" },
	{ "(a{2,}){501}", "invalid repeat count: `{501}`" },
	{ "((a{1,100}){1,100}){1,100}", "invalid repeat count: `{1,100}`" },
	{ "((a{10}){10}){11}", "invalid repeat count: `{11}`" },
	{ "[a", "missing closing ]: `[a`" }, { "[", "missing closing ]: `[`" },
	{ "[]", "missing closing ]: `[]`" },
	{ "[a-", "missing closing ]: `[a-`" },
	{ "[z-a]", "invalid character class range: `z-a`" },
	{ "[[:foo:]]", "invalid character class range: `[:foo:]`" },
	{ "\\p{Foo}", "invalid character class range: `\\p{Foo}`" },
	{ "\\pX", "invalid character class range: `\\pX`" },
	{ "\\p{Greek", "invalid character class range: `\\p{Greek`" },
	{ "\\p", "invalid character class range: `\\p`" },
	{ "\\1", "invalid escape sequence: `\\1`" },
	{ "(a)\\1", "invalid escape sequence: `\\1`" },
	{ "\\8", "invalid escape sequence: `\\8`" },
	{ "\\C", "invalid escape sequence: `\\C`" },
	{ "\\Z", "invalid escape sequence: `\\Z`" },
	{ "\\q", "invalid escape sequence: `\\q`" },
	{ "[\\b]", "invalid escape sequence: `\\b`" },
	{ "[\\Q]", "invalid escape sequence: `\\Q`" },
	{ "\\x{}", "invalid escape sequence: `\\x{}`" },
	{ "\\x{110000}", "invalid escape sequence: `\\x{110000`" },
	{ "\\x{zz}", "invalid escape sequence: `\\x{z`" },
	{ "\\xZZ", "invalid escape sequence: `\\xZZ`" },
	{ "\\x4", "invalid escape sequence: `\\x4`" },
	{ "\\x", "invalid escape sequence: `\\x`" },
	{ "\\x\xc3\xa9g", "invalid escape sequence: `\\x\xc3\xa9g`" },
	{ "\\\xc3\xa9", "invalid escape sequence: `\\\xc3\xa9`" },
	{ "\\", "trailing backslash at end of expression: ``" },
	{ "a\\", "trailing backslash at end of expression: ``" },
	{ "(?=a)", "invalid or unsupported Perl syntax: `(?=`" },
	{ "(?!a)", "invalid or unsupported Perl syntax: `(?!`" },
	{ "(?#c)", "invalid or unsupported Perl syntax: `(?#`" },
	{ "(?>a)", "invalid or unsupported Perl syntax: `(?>`" },
	{ "(?P=n)", "invalid or unsupported Perl syntax: `(?P`" },
	{ "(?z)", "invalid or unsupported Perl syntax: `(?z`" },
	{ "(?i", "invalid or unsupported Perl syntax: `(?i`" },
	{ "(?-)", "invalid or unsupported Perl syntax: `(?-)`" },
	{ "(?i-)", "invalid or unsupported Perl syntax: `(?i-)`" },
	{ "(?--i)", "invalid or unsupported Perl syntax: `(?--`" },
	{ "(?<=a)", "invalid named capture: `(?<=a)`" },
	{ "(?<!a)", "invalid named capture: `(?<!a)`" },
	{ "(?P<>a)", "invalid named capture: `(?P<>`" },
	{ "(?P<a-b>x)", "invalid named capture: `(?P<a-b>`" },
	{ "(?P<name", "invalid named capture: `(?P<name`" },
	{ "a\xff", "invalid UTF-8: ``" },
	{ "\\18", "invalid escape sequence: `\\1`" }, { NULL, NULL } };

int
main(void)
{
	char why[256], small[39], deep[2100];
	const char *const *v;
	clock_t t0;
	int i, rc;

	for (v = valid; *v != NULL; v++) {
		rc = sw_re_check(*v, why, sizeof(why));
		ok(rc == 0, "valid: %s%s%s", *v, rc ? " -- " : "",
		    rc ? why : "");
	}
	for (i = 0; invalid[i].pat != NULL; i++) {
		rc = sw_re_check(invalid[i].pat, why, sizeof(why));
		if (invalid[i].why != NULL)
			ok(rc == -1 && strcmp(why, invalid[i].why) == 0,
			    "invalid: %s -- %s", invalid[i].pat, why);
		else
			ok(rc == -1 && why[0] != '\0', "invalid: %s -- %s",
			    invalid[i].pat, why);
	}

	/* glibc's regcomp took minutes on the first (exponential in the
	 * count) and seconds on the others; each is one pass here. */
	t0 = clock();
	ok(sw_re_check("(((\\b)*)*){10}", why, sizeof(why)) == 0 &&
		sw_re_check("(((a*)*)*)*{1000}", why, sizeof(why)) == -1 &&
		sw_re_check("(((a*)*)*){1000}", why, sizeof(why)) == 0 &&
		sw_re_check("((^)*)*{14}", why, sizeof(why)) == -1,
	    "patterns that held regcomp: checked without compiling");
	ok((double)(clock() - t0) / CLOCKS_PER_SEC < 0.5,
	    "in well under a second (%.3f s)",
	    (double)(clock() - t0) / CLOCKS_PER_SEC);

	/* Nesting: Go's limit is 1000 groups deep. */
	memset(deep, 0, sizeof(deep));
	for (i = 0; i < 1000; i++)
		deep[i] = '(';
	memset(deep + 1000, ')', 1000);
	ok(sw_re_check(deep, why, sizeof(why)) == 0, "1000 groups deep");
	deep[1000] = '(';
	deep[2000] = ')';
	ok(sw_re_check(deep, why, sizeof(why)) == -1 &&
		strncmp(why, "expression nests too deeply", 27) == 0,
	    "1001 groups deep: %s", why);

	/* A cut message ends on a whole character (it is quoted in JSON). */
	rc = sw_re_check("\\p{\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9}", small,
	    sizeof(small));
	/* 35 bytes of words, then two-byte characters: 38 fit, 37 kept */
	ok(rc == -1 && strlen(small) == 37 && (unsigned char)small[36] == 0xa9,
	    "a cut message ends on a character: %s", small);
	ok(sw_re_check("(", NULL, 0) == -1, "no room for words: still -1");
	return tap_done();
}
