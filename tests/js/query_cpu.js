/* The CPU time a large site's keyword answer costs, without the link: the pieces read from
 * the disk, the Lunr index made of them and the query ranked, as refdoc-shards.js does in
 * the search worker. Usage: node query_cpu.js DATA_DIR QUERY [RUNS] → prints
 * {"parse_ms", "index_ms", "rank_ms"} (user CPU, the median of RUNS cold runs, each with
 * nothing cached). User CPU time is what the CPU did for this process, so a loaded
 * machine changes it little, where it multiplies the wall time.
 */
"use strict";
const fs = require("fs");
const path = require("path");
const lunr = require("lunr");
const RefdocShards = require("../../refdoc_site/search/browser/refdoc-shards.js");

const [dataDir, query, runs] = process.argv.slice(2);
const config = JSON.parse(fs.readFileSync(path.join(dataDir, "config.json"), "utf-8"));
const load = (name, as) => {
  const buffer = fs.readFileSync(path.join(dataDir, name));
  return Promise.resolve(as === "json" ? JSON.parse(buffer) : as === "text" ? buffer.toString("utf-8") : buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength));
};
const cpu = () => process.cpuUsage().user / 1000;
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

(async () => {
  const parts = { parse_ms: [], index_ms: [], rank_ms: [] };
  for (let run = 0; run < Number(runs || 3); run++) {
    const data = new RefdocShards.ShardedData(lunr, config, load);
    const start = cpu();
    await data.fetch(query);
    const fetched = cpu();
    data.buildIndex();
    const built = cpu();
    data.rank(query, 10, "fused");
    const ranked = cpu();
    parts.parse_ms.push(fetched - start);
    parts.index_ms.push(built - fetched);
    parts.rank_ms.push(ranked - built);
  }
  const out = {};
  Object.keys(parts).forEach((key) => (out[key] = median(parts[key])));
  process.stdout.write(JSON.stringify(out));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
