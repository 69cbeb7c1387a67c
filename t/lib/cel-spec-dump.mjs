// Writes cel-spec's conformance tests (simple-test files) as JSON on stdout:
// [{file, section, tests: [{name, expr, ...SimpleTest fields in proto3 JSON}]}].
// Arguments name the files to dump; none means all of them.
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";

const want = new Set(process.argv.slice(2));
const out = [];
for (const file of tests.suites ?? []) {
  if (want.size && !want.has(file.name)) continue;
  for (const section of file.suites ?? []) {
    out.push({
      file: file.name,
      section: section.name,
      tests: (section.tests ?? []).map((t) => ({
        ...t.original,
        name: t.original.name ?? t.original.expr,
        checkedType: t.type ?? null,
        checkError: t.error ?? null,
      })),
    });
  }
}
process.stdout.write(JSON.stringify(out));
