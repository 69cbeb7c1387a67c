/*
 * resyntax.h: is a pattern a regular expression in RE2 syntax, as Go's
 * regexp package (regexp.Compile) parses it?  Patterns we hand to
 * operators written in Go (a HyperPodPyTorchJob's logPattern) are
 * checked here, in time linear in the pattern and without compiling
 * it.  The rules follow Go's regexp/syntax with Perl flags: repetition
 * counts at most 1000, also multiplied through nested counts; no
 * repetition of a repetition ("a**", "a{2}{3}"), a lazy "?" aside;
 * (?flags), (?:...), (?P<name>...) and (?<name>...); \Q...\E; \p{...}
 * with Go's Unicode tables (15.0); no backreferences, look-around or \C.
 */
#ifndef SW_RESYNTAX_H
#define SW_RESYNTAX_H

#include <stddef.h>

/* The largest repetition count, and product of nested counts. */
#define SW_RE_MAX_REPEAT 1000
/* Groups nested deeper than this are refused (Go's maxHeight). */
#define SW_RE_MAX_DEPTH 1000

/*
 * 0 when pat parses; -1 when not, with why set to Go's own words for
 * the error and the part of the pattern at fault, as in
 * "invalid nested repetition operator: `**`" (cut to whylen).
 */
int sw_re_check(const char *pat, char *why, size_t whylen);

#endif
