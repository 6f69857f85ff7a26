/* Ranks queries with the site's JavaScript search, as the browser would.
 * Usage: node rank.js DATA_DIR QUERIES_JSON MODE → prints [[{path, symbol, score}, ...], ...]
 * (MODE matches: [{messages: [position, ...], coverage: {position: share} or null}, ...];
 * MODE fuzzy: [[term sent to typo matching, ...], ...]). A large site's data (config.json
 * names shards) is read piece by piece, as the browser fetches it.
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
const bytes = (name) => {
  const buffer = fs.readFileSync(path.join(dataDir, name));
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
};
const config = read("config.json");
// A large site's pieces (refdoc-shards.js): each query fetches, here from the disk, what
// it reads; `fetched` lists the files every query asked for.
const fetched = [];
let sharded = null;
const loadPiece = (name, as) => {
  fetched.push(name);
  return Promise.resolve(as === "json" ? read(name) : as === "text" ? fs.readFileSync(path.join(dataDir, name), "utf-8") : bytes(name));
};
let data = null;
if (config.shards) {
  const RefdocShards = require("../../refdoc_site/search/browser/refdoc-shards.js");
  sharded = new RefdocShards.ShardedData(lunr, config, loadPiece);
} else {
  data = {
    index: RefdocKeyword.load(lunr, read("index.json")),
    chunks: read("chunks.json"),
    settings: config.settings,
    stopWords: config.stopWords,
    commonTerms: config.commonTerms,
    glossary: config.glossary,
    loanwords: config.loanwords,
  };
  if (config.model) {
    data.embedder = RefdocEmbed.StaticEmbedder.fromBytes(bytes(config.model.file), fs.readFileSync(path.join(dataDir, config.model.vocab), "utf-8"));
    data.vectors = RefdocEmbed.VectorTable.fromBytes(bytes(config.vectors));
  }
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
const fuzzyTerms = async (query) => {
  fuzzed.length = 0;
  await search(query, "sparse");
  return Array.from(new Set(fuzzed)).sort();
};
const searcher = sharded ? sharded.searcher : new RefdocSearch.Searcher(lunr, data);
const search = (query, mode) => (sharded ? sharded.search(query, 10, mode) : Promise.resolve(searcher.search(query, 10, mode)));
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf-8"));
// mode "matches": what the sparse side read of each query's matches (sparseMatches).
const matches = async (query) => {
  if (sharded) {
    await sharded.prepare(query);
  }
  const alternatives = searcher.glossaryWords(query);
  const found = searcher.sparseMatches(searcher.expand(query), query, alternatives);
  return { messages: Array.from(found.messages).sort((a, b) => a - b), coverage: found.coverage };
};
(async () => {
  const ranked = [];
  const files = [];
  for (const query of queries) {
    fetched.length = 0;
    ranked.push(
      mode === "matches"
        ? await matches(query)
        : mode === "fuzzy"
          ? await fuzzyTerms(query)
          : (await search(query, mode)).map((hit) => ({ path: hit.path, symbol: hit.symbol, score: hit.score }))
    );
    files.push(Array.from(new Set(fetched)).sort());
  }
  // FETCHED=1: also the files each query read (a large site's pieces).
  process.stdout.write(JSON.stringify(process.env.FETCHED ? { ranked, files } : ranked));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
