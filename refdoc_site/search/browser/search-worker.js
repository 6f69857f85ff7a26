/* refdoc-site search worker: answers Material's search box with the hybrid ranking.
 *
 * Material's search UI talks to a web worker whose URL the page's __config names; the
 * theme override points it here and passes Material's own worker URL as `material`.
 * Protocol (Material's): in {type: 0, setup} → out {type: 1, ready};
 * in {type: 2, data: query} → out {type: 3, data: {items, total}}.
 * Everything is fetched from the site itself, relative to this script, so the site works
 * under any sub-path.
 */
(function () {
  "use strict";

  var SETUP = 0;
  var READY = 1;
  var QUERY = 2;
  var RESULT = 3;
  var TOP = 10;

  // lunr.js 2.3.9 ships inside Material's own search worker, which exposes it as
  // self.lunr. Load it from there for lunr alone: the message listener that script
  // registers is swallowed, so only this worker answers.
  var materialWorker = new URL(self.location.href).searchParams.get("material");
  var addListener = self.addEventListener;
  self.addEventListener = function () {};
  try {
    importScripts(materialWorker);
  } finally {
    self.addEventListener = addListener;
  }
  importScripts("refdoc-search.js");

  var dataUrl = new URL("../../search/refdoc/", self.location.href);
  var loading = null;

  function fetchJson(name) {
    return fetch(new URL(name, dataUrl)).then(function (response) {
      if (!response.ok) {
        throw new Error(name + ": HTTP " + response.status);
      }
      return response.json();
    });
  }

  function fetchBytes(name) {
    return fetch(new URL(name, dataUrl)).then(function (response) {
      if (!response.ok) {
        throw new Error(name + ": HTTP " + response.status);
      }
      return response.arrayBuffer();
    });
  }

  function load() {
    if (loading) {
      return loading;
    }
    loading = Promise.all([fetchJson("config.json"), fetchJson("index.json"), fetchJson("chunks.json")]).then(
      function (parts) {
        var config = parts[0];
        var data = {
          index: self.lunr.Index.load(parts[1]),
          chunks: parts[2],
          settings: config.settings,
          stopWords: config.stopWords,
          commonTerms: config.commonTerms,
          glossary: config.glossary
        };
        if (!config.model) {
          return new RefdocSearch.Searcher(self.lunr, data);
        }
        importScripts("refdoc-embed.js");
        return Promise.all([
          fetchBytes(config.model.file),
          fetch(new URL(config.model.vocab, dataUrl)).then(function (r) {
            return r.text();
          }),
          fetchBytes(config.vectors)
        ]).then(function (binary) {
          data.embedder = RefdocEmbed.StaticEmbedder.fromBytes(binary[0], binary[1]);
          data.vectors = RefdocEmbed.VectorTable.fromBytes(binary[2]);
          return new RefdocSearch.Searcher(self.lunr, data);
        });
      }
    );
    return loading;
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  /* Material renders a group as a page (no '#' in its location) followed by its sections;
     hits are grouped by file, best file first, each chunk a section with its summary. A
     section of a prose page (overview, module, decisions, plan) is grouped under its
     page's title and shows its heading and the start of its text. */
  function toItems(hits, chunks, terms) {
    var groups = [];
    var byPath = Object.create(null);
    hits.forEach(function (hit) {
      var chunk = chunks[hit.position];
      var group = byPath[hit.path];
      if (!group) {
        group = byPath[hit.path] = [
          { location: chunk.page, title: escapeHtml(chunk.title || hit.path), text: "", score: hit.score, terms: terms }
        ];
        groups.push(group);
      }
      if (chunk.kind === "page") {
        group.push({
          location: chunk.anchor ? chunk.page + "#" + chunk.anchor : chunk.page,
          title: escapeHtml(hit.symbol),
          text: "<p>" + escapeHtml(chunk.summary) + "</p>",
          score: group[0].score,
          terms: terms
        });
        return;
      }
      group.push({
        location: chunk.page + "#" + chunk.anchor,
        title: escapeHtml(hit.symbol) + " <small>" + escapeHtml(hit.kind) + ", lines " + hit.start_line + "–" + hit.end_line + "</small>",
        text: "<p><code>" + escapeHtml(chunk.signature) + "</code></p><p>" + escapeHtml(chunk.summary) + "</p>",
        score: group[0].score,
        terms: terms
      });
    });
    return groups;
  }

  self.addEventListener("message", function (event) {
    var message = event.data;
    if (message.type === SETUP) {
      load().then(
        function () {
          self.postMessage({ type: READY });
        },
        function (error) {
          console.error("refdoc-site search could not load its data: " + error.message);
        }
      );
    } else if (message.type === QUERY) {
      var text = String(message.data || "").trim();
      load().then(function (searcher) {
        var hits = text ? searcher.search(text, TOP, "fused") : [];
        var terms = {};
        RefdocSearch.queryTerms(searcher.expand(text), searcher.stopWords).forEach(function (term) {
          terms[term] = true;
        });
        var items = toItems(hits, searcher.chunks, terms);
        self.postMessage({ type: RESULT, data: { items: items, total: hits.length } });
      });
    }
  });
})();
