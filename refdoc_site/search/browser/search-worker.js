/* refdoc-site search worker: answers Material's search box with the hybrid ranking.
 *
 * Material's search UI talks to a web worker whose URL the page's __config names; the
 * theme override points it here and passes Material's own worker URL as `material`.
 * Protocol (Material's): in {type: 0, setup} → out {type: 1, ready};
 * in {type: 2, data: query} → out {type: 3, data: {items, total}}.
 * refdoc-site's own: in {type: "refdoc-warm"} (the page saw the search box about to be
 * used) → out {type: "refdoc-state", data: "keyword"} once keyword search works, then
 * {type: "refdoc-state", data: "settled"} once the vectors and the model are in too.
 *
 * Nothing is fetched before the page asks for it (a query or a warm-up), so a page that
 * is only read costs no search data. The keyword side (Lunr index and chunk table) loads
 * first and answers at once; the vectors and the model follow, and the answer on screen
 * is then re-ranked below the results the user is reading (see settle).
 * A large site (config.json names `shards`) is fetched piece by piece instead
 * (refdoc-shards.js): each query first fetches its term shards and the rows of its
 * results, answers by keyword, then fetches its word pieces' model rows and nearest
 * vector clusters and settles; the state goes back to "keyword" for each new query.
 * Everything is fetched from the site itself, relative to this script, so the site works
 * under any sub-path.
 */
(function () {
  "use strict";

  var SETUP = 0;
  var READY = 1;
  var QUERY = 2;
  var RESULT = 3;
  var WARM = "refdoc-warm";
  var STATE = "refdoc-state";
  var TOP = 10;
  // The results a reader sees first in the dropdown (on a phone, the whole first screen):
  // when the vectors arrive they keep their places and only the rest is re-ranked.
  var KEPT_ON_SETTLE = 3;

  var dataUrl = new URL("../../search/refdoc/", self.location.href);
  var keyword = null;
  var sharded = null;
  var latest = "";
  var latestAt = 0;
  var shown = null;

  var SCRIPTS = ["refdoc-search.js", "refdoc-keyword.js", "refdoc-embed.js", "refdoc-shards.js"];

  /* lunr.js 2.3.9 ships inside Material's own search worker, which exposes it as
     self.lunr. Load it from there for lunr alone: the message listener that script
     registers is swallowed, so only this worker answers. The scripts are fetched all at
     once and run in order from their text (importScripts fetches one after the other, a
     round trip each: 0.45 s of django's first answer on a 40 ms link, under load). */
  function importRanking() {
    var urls = [new URL(self.location.href).searchParams.get("material")].concat(
      SCRIPTS.map(function (name) {
        return new URL(name, self.location.href).href;
      })
    );
    return Promise.all(
      urls.map(function (url) {
        return fetch(url).then(function (response) {
          if (!response.ok) {
            throw new Error(url + ": HTTP " + response.status);
          }
          return response.text();
        });
      })
    ).then(function (texts) {
      var addListener = self.addEventListener;
      self.addEventListener = function () {};
      try {
        run(urls[0], texts[0]);
      } finally {
        self.addEventListener = addListener;
      }
      for (var i = 1; i < urls.length; i++) {
        run(urls[i], texts[i]);
      }
    });
  }

  /* A script of this site, fetched already, run as importScripts would run it; where a
     Content-Security-Policy forbids that, imported again from its URL. */
  function run(url, text) {
    try {
      (0, eval)(text + "\n//# sourceURL=" + url);
    } catch (error) {
      if (!(error instanceof EvalError)) {
        throw error;
      }
      importScripts(url);
    }
  }

  /* A pull request's preview publishes only the data files that differ from the main
     site's (rendering/previews.py): config.json's `preview` names them (`own`), any other
     is fetched from the main site's data folder; and it names the pages the preview keeps; a row names its page
     relative to the site's root, and a page the preview does not keep is the main site's
     (`preview.site`, that site's root relative to the preview's). */
  var fromMain = null;

  function pageLocation(page) {
    return fromMain && !fromMain.pages[page] ? fromMain.site + page : page;
  }

  function fetched(name) {
    var base = fromMain && !fromMain.own[name] ? fromMain.url : dataUrl;
    return fetch(new URL(name, base)).then(function (response) {
      if (!response.ok) {
        throw new Error(name + ": HTTP " + response.status);
      }
      return response;
    });
  }

  function fetchJson(name) {
    return fetched(name).then(function (response) {
      return response.json();
    });
  }

  function fetchBytes(name) {
    return fetched(name).then(function (response) {
      return response.arrayBuffer();
    });
  }

  function fetchPiece(name, as) {
    return fetched(name).then(function (response) {
      return as === "json" ? response.json() : as === "text" ? response.text() : response.arrayBuffer();
    });
  }

  /* The keyword searcher; once it works, the vectors and the model start loading. */
  function loadKeyword() {
    if (keyword) {
      return keyword;
    }
    // The data and the scripts are on their way together.
    var config = fetchJson("config.json");
    var data = config.then(function (config) {
      if (config.preview) {
        fromMain = { url: new URL(config.preview.main, dataUrl), own: {}, site: config.preview.site, pages: {} };
        config.preview.own.forEach(function (name) {
          fromMain.own[name] = true;
        });
        config.preview.pages.forEach(function (page) {
          fromMain.pages[page] = true;
        });
      }
      return config.shards ? [config] : Promise.all([config, fetchJson("index.json"), fetchJson("chunks.json")]);
    });
    keyword = Promise.all([data, importRanking()]).then(function (loaded) {
      var parts = loaded[0];
      var config = parts[0];
      if (config.shards) {
        // A query's pieces go out with the chunk metadata, not after it (a round trip).
        sharded = new RefdocShards.ShardedData(self.lunr, config, fetchPiece);
        sharded.file("meta.bin", "bytes").then(function () {
          self.postMessage({ type: STATE, data: "keyword" });
        });
        return sharded.searcher;
      }
      var searcher = new RefdocSearch.Searcher(self.lunr, {
        index: RefdocKeyword.load(self.lunr, parts[1]),
        chunks: parts[2],
        settings: config.settings,
        stopWords: config.stopWords,
        commonTerms: config.commonTerms,
        glossary: config.glossary,
        loanwords: config.loanwords
      });
      self.postMessage({ type: STATE, data: "keyword" });
      loadMeaning(searcher, config);
      return searcher;
    });
    keyword.catch(function (error) {
      console.error("refdoc-site search could not load its data: " + error.message);
    });
    return keyword;
  }

  /* The dense side, after the keyword side: its bytes never delay the first answer. */
  function loadMeaning(searcher, config) {
    if (!config.model) {
      self.postMessage({ type: STATE, data: "settled" });
      return;
    }
    Promise.all([
      fetchBytes(config.model.file),
      fetched(config.model.vocab).then(function (response) {
        return response.text();
      }),
      fetchBytes(config.vectors)
    ]).then(
      function (binary) {
        searcher.embedder = RefdocEmbed.StaticEmbedder.fromBytes(binary[0], binary[1]);
        searcher.vectors = RefdocEmbed.VectorTable.fromBytes(binary[2]);
        settle(searcher);
        self.postMessage({ type: STATE, data: "settled" });
      },
      function (error) {
        console.error("refdoc-site search answers by keyword only: " + error.message);
        self.postMessage({ type: STATE, data: "settled" });
      }
    );
  }

  /* Re-rank the answer on screen with the vectors: its first KEPT_ON_SETTLE results stay
     where they are, the hybrid ranking fills the places below them. */
  function settle(searcher) {
    if (!shown || !shown.text || shown.text !== latest) {
      return;
    }
    var kept = shown.hits.slice(0, KEPT_ON_SETTLE);
    var keys = Object.create(null);
    kept.forEach(function (hit) {
      keys[hitKey(hit)] = true;
    });
    var below = searcher.search(shown.text, TOP + kept.length, "fused").filter(function (hit) {
      return !keys[hitKey(hit)];
    });
    post(searcher, shown.text, kept.concat(below).slice(0, TOP), true);
  }

  /* A large site's query: once no other query came for KEYWORD_QUIET_MS (Material sends
     one a keystroke: "d", "de", "del" on the way to "delete" fetch nothing of their own
     when typed in a burst), its keyword pieces and rows, the answer, then (once no other
     query came for DENSE_QUIET_MS) its dense pieces and the settled answer, as settle
     does. A query's pieces load while an earlier one's still do; only the latest query
     is ranked and shown. */
  var KEYWORD_QUIET_MS = 40;
  var DENSE_QUIET_MS = 250;
  var waiting = null;

  function answerSharded(searcher, text) {
    clearTimeout(waiting);
    // Quiet since the query came, not since the data it waited for: a query typed while
    // the scripts loaded has been quiet for long enough when they are in.
    var quiet = Math.max(0, KEYWORD_QUIET_MS - (Date.now() - latestAt));
    waiting = setTimeout(function () {
      if (text !== latest) {
        return;
      }
      self.postMessage({ type: STATE, data: "keyword" });
      sharded
        .fetch(text)
        .then(function () {
          return text === latest ? rankedHits(text, TOP) : null;
        })
        .then(function (hits) {
          if (hits && text === latest) {
            post(searcher, text, hits, false);
            setTimeout(function () {
              settleSharded(searcher, text);
            }, DENSE_QUIET_MS);
          }
        })
        .catch(function (error) {
          console.error("refdoc-site search could not load its data: " + error.message);
        });
    }, quiet);
  }

  function settleSharded(searcher, text) {
    if (text !== latest) {
      return;
    }
    sharded
      .prepareDense(text)
      .then(function () {
        if (text !== latest || !shown || shown.text !== text) {
          return;
        }
        var kept = shown.hits.slice(0, KEPT_ON_SETTLE);
        var keys = Object.create(null);
        kept.forEach(function (hit) {
          keys[hitKey(hit)] = true;
        });
        return rankedHits(text, TOP + kept.length).then(function (below) {
          if (text === latest) {
            below = below.filter(function (hit) {
              return !keys[hitKey(hit)];
            });
            post(searcher, text, kept.concat(below).slice(0, TOP), true);
            self.postMessage({ type: STATE, data: "settled" });
          }
        });
      })
      .catch(function (error) {
        console.error("refdoc-site search answers by keyword only: " + error.message);
        self.postMessage({ type: STATE, data: "settled" });
      });
  }

  /* The hits of `text` with their rows fetched. */
  function rankedHits(text, top) {
    var ranked = sharded.rank(text, top, "fused");
    return sharded
      .prepareRows(ranked.map(function (hit) { return hit.position; }))
      .then(function () {
        return ranked.map(function (hit) { return sharded.searcher.hit(hit); });
      });
  }

  function hitKey(hit) {
    return hit.path + "\u0000" + hit.symbol;
  }

  function post(searcher, text, hits, settles) {
    shown = { text: text, hits: hits };
    var terms = {};
    RefdocSearch.queryTerms(searcher.expand(text), searcher.stopWords).forEach(function (term) {
      terms[term] = true;
    });
    var items = toItems(hits, searcher.table, terms);
    self.postMessage({ type: RESULT, data: { items: items, total: items.length, settles: Boolean(settles) } });
  }

  /* The characters that change how a name shows without showing (a bidi override, a
     zero-width space: core/text.py INVISIBLE), written out as the pages write them. */
  var INVISIBLE = /[\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0]/g;

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    }).replace(INVISIBLE, function (c) {
      return "\u27e8U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + "\u27e9";
    });
  }

  /* One Material result per hit, in rank order, so the header's count ("7 matching
     documents") is the number of results shown. Material renders a result as a page (no
     '#' in its location: the file's path, or a prose page's title) followed by its
     sections (the chunk, with its signature and summary; a prose section, with its heading
     and the start of its text); equal scores keep the section out of the "more" fold. */
  function toItems(hits, table, terms) {
    return hits.map(function (hit) {
      var chunk = table.row(hit.position);
      var page = pageLocation(chunk.page);
      if (chunk.kind === "page") {
        return [
          { location: page, title: escapeHtml(chunk.title || hit.path), text: "", score: hit.score, terms: terms },
          {
            location: chunk.anchor ? page + "#" + chunk.anchor : page,
            title: escapeHtml(hit.symbol),
            text: "<p>" + escapeHtml(chunk.summary) + "</p>",
            score: hit.score,
            terms: terms
          }
        ];
      }
      return [
        { location: page, title: escapeHtml(hit.path), text: "", score: hit.score, terms: terms },
        {
          location: page + "#" + chunk.anchor,
          title: escapeHtml(hit.symbol) + " <small>" + escapeHtml(hit.kind) + ", lines " + hit.start_line + "–" + hit.end_line + "</small>",
          text: "<p><code>" + escapeHtml(chunk.signature) + "</code></p><p>" + escapeHtml(chunk.summary) + "</p>",
          score: hit.score,
          terms: terms
        }
      ];
    });
  }

  self.addEventListener("message", function (event) {
    var message = event.data;
    if (message.type === SETUP) {
      // Material sends its own index here; the search data loads on first use instead.
      self.postMessage({ type: READY });
    } else if (message.type === WARM) {
      loadKeyword();
    } else if (message.type === QUERY) {
      var text = String(message.data || "").trim();
      if (text !== latest) {
        latestAt = Date.now();
      }
      latest = text;
      if (!text) {
        // Material asks for the empty query as soon as the worker is ready.
        self.postMessage({ type: RESULT, data: { items: [], total: 0, settles: false } });
        shown = null;
        return;
      }
      loadKeyword().then(function (searcher) {
        if (sharded) {
          answerSharded(searcher, text);
        } else {
          post(searcher, text, searcher.search(text, TOP, "fused"), false);
        }
      });
    }
  });
})();
