/* Ranks queries with the site's JavaScript search, as the browser would.
 * Usage: node rank.js DATA_DIR QUERIES_JSON MODE → prints [[{path, symbol, score}, ...], ...]
 */
"use strict";
const fs = require("fs");
const path = require("path");
const lunr = require("lunr");
const RefdocSearch = require("../../refdoc_site/browser/refdoc-search.js");

const [dataDir, queriesFile, mode] = process.argv.slice(2);
const read = (name) => JSON.parse(fs.readFileSync(path.join(dataDir, name), "utf-8"));
const config = read("config.json");
const searcher = new RefdocSearch.Searcher(lunr, {
  index: lunr.Index.load(read("index.json")),
  chunks: read("chunks.json"),
  settings: config.settings,
  stopWords: config.stopWords,
});
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf-8"));
const ranked = queries.map((query) =>
  searcher.search(query, 10, mode).map((hit) => ({ path: hit.path, symbol: hit.symbol, score: hit.score }))
);
process.stdout.write(JSON.stringify(ranked));
