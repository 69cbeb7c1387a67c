#!/usr/bin/python3
"""bench/run --quick: every benchmark still runs and still measures.

The short version of the suite's benchmarks (a few samples each, two
pipelines), so bench/ cannot rot unseen.  Asserts the shape and the
sense of the table, never a speed target: the machine is shared.  Each
row must hold a positive median and reference, a spread around the
median, and the ratio the two medians give.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402

t = T()
SRC = os.environ.get("SW_SRCDIR") or os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))
BUILD = os.environ.get("SW_BUILDDIR") or SRC
out = os.path.join(tempfile.mkdtemp(prefix="sw-bench-smoke-"), "results.md")
p = subprocess.run([sys.executable, os.path.join(SRC, "bench", "run"),
                    "--quick", "--out", out], cwd=BUILD,
                   capture_output=True, text=True, timeout=600,
                   env=dict(os.environ, SW_BUILDDIR=BUILD))
t.ok(p.returncode == 0, "bench/run --quick exits 0")
if p.returncode != 0:
    t.diag(p.stdout[-3000:])
    t.diag(p.stderr[-3000:])
text = open(out).read() if os.path.exists(out) else ""
t.ok(text.startswith("# Slipway benchmarks"), "results written to --out")

rows = {}
for line in text.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 8 and cells[0] not in ("bench", "---"):
        rows.setdefault(cells[0], []).append(cells)
for bench in ("sandbox", "rest", "contract", "mcp", "oidc", "cluster", "pss", "start",
              "pipelines", "replicas", "stream", "ledger", "notify"):
    t.ok(bench in rows, "a row for %s" % bench)

NUM = r"(\d+(?:\.\d+)?)"


def half_unit(text):
    """Half the last shown digit of a rounded figure."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10 ** -decimals
measured = 0
for bench, cells_list in sorted(rows.items()):
    for cells in cells_list:
        if cells[2] == "-":
            t.ok(bench == "stream" or (bench in ("oidc", "replicas") and
                                       cells[7].startswith("skipped")) or
                 (bench in ("contract", "mcp") and
                  cells[7].startswith("skipped in --quick")),
                 "%s: %s is a slot only if it is the stream's, the "
                 "provider's without t/node_modules, the replicas' "
                 "without PostgreSQL or the two builds "
                 "of the contract's or MCP's before and now (%s)" %
                 (bench, cells[1], cells[7]))
            continue
        m = re.match(NUM + r" \S+ \[" + NUM + "-" + NUM + r"\]$", cells[2])
        r = re.match(NUM + r" \[" + NUM + "-" + NUM + r"\]$", cells[5])
        q = re.match(NUM + r"x", cells[6])
        good = m and r and q
        if good:
            med, lo, hi = (float(x) for x in m.groups())
            ref = float(r.group(1))
            ratio = float(q.group(1))
            # The table rounds each figure: the ratio of the unrounded
            # medians lies between those of the rounding's bounds.
            dm, dr = half_unit(m.group(1)), half_unit(r.group(1))
            if "faster" in cells[6]:
                lo_r = (ref - dr) / (med + dm)
                hi_r = (ref + dr) / max(med - dm, 1e-9)
            else:
                lo_r = (med - dm) / (ref + dr)
                hi_r = (med + dm) / max(ref - dr, 1e-9)
            slack = half_unit(q.group(1))
            good = (med > 0 and ref > 0 and lo <= med <= hi and
                    lo_r - slack <= ratio <= hi_r + slack)
        t.ok(good, "%s: %s = %s beside %s, ratio %s" %
             (bench, cells[1], cells[2], cells[5], cells[6]))
        measured += 1
t.ok(measured >= 12, "%d figures measured" % measured)
t.done()
