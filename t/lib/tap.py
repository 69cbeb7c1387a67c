"""tap.py: Test Anything Protocol for the Python-driven tests in t/.

Usage: from tap import T; t = T(); t.ok(cond, "name"); ...; t.done()
done() prints the plan and exits non-zero if any test failed.
"""
import json
import sys


class T:
    def __init__(self):
        self.n = 0
        self.failed = 0
        self.at_done = []       # called once by done(), before the plan

    def ok(self, cond, name):
        self.n += 1
        if not cond:
            self.failed += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, name),
              flush=True)
        return bool(cond)

    def eq(self, got, want, name):
        good = got == want
        if not self.ok(good, name):
            self.diag("got:      %r" % (got,))
            self.diag("expected: %r" % (want,))
        return good

    def diag(self, msg):
        for line in str(msg).splitlines() or [""]:
            print("# " + line, flush=True)

    def skip(self, why, n=1):
        for _ in range(n):
            self.n += 1
            print("ok %d # SKIP %s" % (self.n, why), flush=True)

    def skip_all(self, why):
        print("1..0 # SKIP %s" % why, flush=True)
        sys.exit(0)

    def bail(self, why):
        print("Bail out! %s" % why, flush=True)
        sys.exit(255)

    def done(self):
        hooks, self.at_done = self.at_done, []
        for fn in hooks:
            fn()
        print("1..%d" % self.n, flush=True)
        if self.failed:
            print("# failed %d of %d" % (self.failed, self.n), flush=True)
        sys.exit(1 if self.failed else 0)


def dumps(obj):
    return json.dumps(obj, indent=1, sort_keys=True)
