// Sphinx's own search ranking, run outside a browser: the corpus's
// _static/searchtools.js and language_data.js (Sphinx 5.3 in Debian 12) and
// its searchindex.js are loaded into a node vm context whose browser globals
// are stubs. Search.query() ranks exactly as in a browser; only its last
// step, which writes the result list into the page, is redirected so that
// the list is kept instead. Reads queries from stdin, one a line, and prints
// for each its top 50 results (a page can recur) as "N<TAB>rank<TAB>page<TAB>anchor" (N counts queries
// from 1), as bench_search rank does.
//
// Usage: node sphinx_search.js HTML_DIR < queries
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const root = process.argv[2];
const read = (rel) => fs.readFileSync(path.join(root, rel), "utf8");
const DISPLAY = "_displayNextItem(results, results.length, searchTerms, highlightTerms);";

let tools = read("_static/searchtools.js");
if (!tools.includes(DISPLAY)) {
  console.error("sphinx_search.js: searchtools.js is not the expected version (5.x)");
  process.exit(2);
}
tools = tools.replace(DISPLAY, "Search.lastResults = results;");

const context = {
  document: { getElementById: () => null },
  window: {},
  localStorage: { setItem: () => {} },
  SPHINX_HIGHLIGHT_ENABLED: false,
  DOCUMENTATION_OPTIONS: {},
  _: (s) => s,
  _ready: () => {},
  console,
};
vm.createContext(context);
vm.runInContext(read("_static/language_data.js"), context);
// Top-level const Search is not a context property: export it.
vm.runInContext(tools + "\nglobalThis.Search = Search;", context);
vm.runInContext(read("searchindex.js"), context);

const suffix = ".html";
const queries = fs.readFileSync(0, "utf8").split("\n");
let n = 0;
for (const q of queries) {
  if (q.trim() === "") continue;
  n++;
  context.Search.query(q);
  // Displayed by pop(): the best result is last.
  const results = context.Search.lastResults.slice().reverse().slice(0, 50);
  results.forEach((r, i) => {
    const anchor = r[2] ? r[2].replace(/^#/, "") : "";
    console.log(`${n}\t${i + 1}\t${r[0]}${suffix}\t${anchor}`);
  });
}
