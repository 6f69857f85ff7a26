/* Ranks queries with the site's JavaScript search, as the browser would.
 * Usage: node rank.js DATA_DIR QUERIES_JSON MODE → prints [[{path, symbol, score}, ...], ...]
 * (MODE matches: [{messages: [position, ...], coverage: {position: share} or null}, ...];
 * MODE fuzzy: [[term sent to typo matching, ...], ...])
 */
"use strict";
const fs = require("fs");
const path = require("path");
const lunr = require("lunr");
const RefdocSearch = require("../../refdoc_site/search/browser/refdoc-search.js");
const RefdocEmbed = require("../../refdoc_site/search/browser/refdoc-embed.js");
const RefdocKeyword = require("../../refdoc_site/search/browser/refdoc-keyword.js");

const [dataDir, queriesFile, mode] = process.argv.slice(2);
const read = (name) => JSON.parse(fs.readFileSync(path.join(dataDir, name), "utf-8"));
const config = read("config.json");
const data = {
  index: RefdocKeyword.load(lunr, read("index.json")),
  chunks: read("chunks.json"),
  settings: config.settings,
  stopWords: config.stopWords,
  commonTerms: config.commonTerms,
  glossary: config.glossary,
  loanwords: config.loanwords,
};
if (config.model) {
  const bytes = (name) => {
    const buffer = fs.readFileSync(path.join(dataDir, name));
    return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  };
  data.embedder = RefdocEmbed.StaticEmbedder.fromBytes(bytes(config.model.file), fs.readFileSync(path.join(dataDir, config.model.vocab), "utf-8"));
  data.vectors = RefdocEmbed.VectorTable.fromBytes(bytes(config.vectors));
}
// mode "fuzzy": the terms each query sent to Lunr's typo matching (editDistance clauses).
const fuzzed = [];
if (mode === "fuzzy") {
  const term = lunr.Query.prototype.term;
  lunr.Query.prototype.term = function (value, options) {
    if (options && options.editDistance) {
      fuzzed.push(String(value));
    }
    return term.call(this, value, options);
  };
}
const fuzzyTerms = (query) => {
  fuzzed.length = 0;
  searcher.search(query, 10, "sparse");
  return Array.from(new Set(fuzzed)).sort();
};
const searcher = new RefdocSearch.Searcher(lunr, data);
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf-8"));
// mode "matches": what the sparse side read of each query's matches (sparseMatches).
const matches = (query) => {
  const alternatives = searcher.glossaryWords(query);
  const found = searcher.sparseMatches(searcher.expand(query), query, alternatives);
  return { messages: Array.from(found.messages).sort((a, b) => a - b), coverage: found.coverage };
};
const ranked = queries.map((query) =>
  mode === "matches"
    ? matches(query)
    : mode === "fuzzy"
      ? fuzzyTerms(query)
      : searcher.search(query, 10, mode).map((hit) => ({ path: hit.path, symbol: hit.symbol, score: hit.score }))
);
process.stdout.write(JSON.stringify(ranked));
