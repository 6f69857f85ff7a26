/* refdoc-site search on a large site: fetches the pieces a query needs, then ranks with
 * refdoc-search.js as a small site does.
 *
 * refdoc_site/search/site_shards.py writes the pieces and says what each holds. For a
 * query this fetches: the term shards of its exact, prefix and typo clauses (the typo
 * clause's terms found in the word lists by first and by last two letters), so that the
 * Lunr index made of them scores the query exactly as the whole index would; the name
 * bucket of a query that is a name; the rows of the results shown; and, for the dense
 * side, the model rows of the query's word pieces, the centroids and code words, and the
 * chunks of the `probe` nearest clusters in residual codes, then the exact rows of the `rerank` best of
 * their chunks (the one approximate step: vector_partition.py does the same in Python,
 * and the recall against all chunks is measured).
 *
 * `load(name, as)` fetches a file of the data folder as "json", "bytes" or "text" and
 * returns a promise: the worker fetches over HTTP, the parity tests read the disk. The
 * JSON pieces are gzipped on disk when the manifest says `packed` (their names then end
 * in it, ".gz"): fetched as bytes and unpacked here.
 * Runs in the site's search worker and under node.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory(require("./refdoc-search.js"), require("./refdoc-embed.js"), require("./refdoc-keyword.js"));
  } else {
    root.RefdocShards = factory(root.RefdocSearch, root.RefdocEmbed, root.RefdocKeyword);
  }
})(typeof self !== "undefined" ? self : this, function (RefdocSearch, RefdocEmbed, RefdocKeyword) {
  "use strict";

  var FORMAT = "refdoc-shards/4";
  var PRIVATE_BIT = 0x10;
  var CONTINUES_BIT = 0x20;
  var ASIDE_BIT = 0x40;
  var KIND_BITS = 0x0f;
  var FUZZY_KEY = 2;
  var ASCII = /^[\x00-\x7f]*$/;

  // Lunr keeps no metadata per posting here: one empty object serves them all (as in
  // refdoc-keyword.js; lunr only copies its keys).
  var NO_METADATA = Object.freeze({});

  /* [term number, weight, ...] in term number order, as lunr.Vector's dot product needs. */
  function byTermNumber(flat) {
    if (flat.length <= 2) {
      return flat;
    }
    var order = [];
    for (var i = 0; i < flat.length; i += 2) {
      order.push(i);
    }
    order.sort(function (a, b) {
      return flat[a] - flat[b];
    });
    var sorted = [];
    order.forEach(function (i) {
      sorted.push(flat[i], flat[i + 1]);
    });
    return sorted;
  }

  function byString(x, y) {
    return x < y ? -1 : x > y ? 1 : 0;
  }

  /* The vocabulary shard of a word piece: site_shards.vocab_key. */
  function vocabKey(piece) {
    if (piece.slice(0, 2) === "##") {
      return "##";
    }
    var first = piece.charAt(0);
    return /^[a-z0-9]$/.test(first) ? first : "other";
  }

  /* A key in a file's name, four hex digits a UTF-16 code unit: site_shards.key_name. */
  function keyName(key) {
    var out = "";
    for (var i = 0; i < key.length; i++) {
      out += ("000" + key.charCodeAt(i).toString(16)).slice(-4);
    }
    return out;
  }

  /* FNV-1a over UTF-16 code units: site_shards.name_bucket. */
  function nameBucket(key, buckets) {
    var value = 0x811c9dc5;
    for (var i = 0; i < key.length; i++) {
      value = Math.imul(value ^ key.charCodeAt(i), 0x01000193) >>> 0;
    }
    return value % buckets;
  }

  /* Whether a and b are at most one edit apart (an insertion, a deletion, a substitution
     or two neighbours swapped): every term Lunr's editDistance 1 can reach. */
  function withinOneEdit(a, b) {
    if (Math.abs(a.length - b.length) > 1) {
      return false;
    }
    var start = 0;
    while (start < a.length && start < b.length && a.charAt(start) === b.charAt(start)) {
      start++;
    }
    var ea = a.length;
    var eb = b.length;
    while (ea > start && eb > start && a.charAt(ea - 1) === b.charAt(eb - 1)) {
      ea--;
      eb--;
    }
    var left = ea - start;
    var right = eb - start;
    if (left <= 1 && right <= 1) {
      return true;
    }
    return left === 2 && right === 2 && a.charAt(start) === b.charAt(start + 1) && a.charAt(start + 1) === b.charAt(start);
  }

  /* Where each position's row and exact vector lie: its file group (the manifest's
     `rowRuns`, run lengths of groups in position order) and its number among that
     group's positions; bundle "G-K" holds `per` of them (site_shards._bundles). A piece
     names a chunk by its stable id, group · stride + that number (site_shards.stable_ids). */
  function Bundles(runs, count, stride) {
    this.group = new Uint32Array(count);
    this.local = new Uint32Array(count);
    this.stride = stride;
    this.members = new Map();
    var position = 0;
    for (var i = 0; i < runs.length; i += 2) {
      var group = runs[i + 1];
      var members = this.members.get(group) || [];
      for (var k = 0; k < runs[i]; k++, position++) {
        this.group[position] = group;
        this.local[position] = members.length;
        members.push(position);
      }
      this.members.set(group, members);
    }
  }

  Bundles.prototype.position = function (id) {
    return this.members.get(Math.floor(id / this.stride))[id % this.stride];
  };

  Bundles.prototype.name = function (position, per) {
    return this.group[position] + "-" + Math.floor(this.local[position] / per);
  };

  Bundles.prototype.offset = function (position, per) {
    return this.local[position] % per;
  };

  /* What the ranking reads of the chunks (refdoc-search.js ChunkTable), from meta.bin,
     the name buckets and the row bundles fetched so far. */
  function ShardTable(shards) {
    this.shards = shards;
  }

  ShardTable.prototype.kind = function (position) {
    return this.shards.manifest.kinds[this.shards.meta[position] & KIND_BITS];
  };

  ShardTable.prototype.isAside = function (position) {
    return !!(this.shards.meta[position] & ASIDE_BIT);
  };

  ShardTable.prototype.isPublic = function (position) {
    return !(this.shards.meta[position] & PRIVATE_BIT);
  };

  ShardTable.prototype.group = function (position) {
    var meta = this.shards.meta;
    while (position > 0 && meta[position] & CONTINUES_BIT) {
      position--;
    }
    var first = this.shards.manifest.groups[position];
    return first === undefined ? position : first;
  };

  ShardTable.prototype.row = function (position) {
    var per = this.shards.manifest.rowsPerBundle;
    var bundle = this.shards.rows.get(this.shards.bundles.name(position, per));
    return bundle ? bundle[this.shards.bundles.offset(position, per)] : null;
  };

  ShardTable.prototype.named = function (key) {
    var bucket = this.shards.names.get(nameBucket(key, this.shards.manifest.nameBuckets));
    return (bucket && bucket.get(key)) || [];
  };

  /* The chunks of the probed clusters: each scored by its centroid's score plus its
     residual's in product codes (the code words' scores by slice, `codeTables`), the
     `rerank` best of them again by their exact int8 rows, as VectorTable.scores scores
     every chunk (vector_partition.approximate_dense_scores). */
  function ClusterVectors(shards) {
    this.shards = shards;
  }

  /* The `probe` clusters whose centroids score highest (`scores`: the centroids' scores
     of the query), ties to the lower number. */
  ClusterVectors.prototype.probed = function (query, scores) {
    scores = scores || this.shards.centroids.scores(query);
    var order = [];
    for (var i = 0; i < scores.length; i++) {
      order.push(i);
    }
    order.sort(function (a, b) {
      return scores[b] - scores[a] || a - b;
    });
    return order.slice(0, this.shards.manifest.vectors.probe);
  };

  function byScoreThenPosition(a, b) {
    return b[1] - a[1] || a[0] - b[0];
  }

  /* Each code word · its slice of the query (Codebook.tables): summed dimension by
     dimension, then scaled; the query padded with zeros past its last dimension. */
  function codeTables(book, query) {
    var tables = new Float64Array(book.subspaces * book.words);
    for (var m = 0; m < book.subspaces; m++) {
      for (var k = 0; k < book.words; k++) {
        var offset = (m * book.words + k) * book.width;
        var sum = 0;
        for (var d = 0; d < book.width; d++) {
          var at = m * book.width + d;
          sum += book.rows[offset + d] * (at < query.length ? query[at] : 0);
        }
        tables[m * book.words + k] = sum * book.scales[m];
      }
    }
    return tables;
  }

  /* [[position, coarse score], ...] of the probed clusters' chunks, best first. */
  ClusterVectors.prototype.coarse = function (query) {
    var shards = this.shards;
    var book = shards.codebook;
    var tables = codeTables(book, query);
    var centroid = shards.centroids.scores(query);
    var scored = [];
    this.probed(query, centroid).forEach(function (cluster) {
      var table = shards.clusters.get(cluster);
      var subspaces = table.subspaces;
      var codes = table.codes;
      for (var i = 0; i < table.positions.length; i++) {
        var offset = i * subspaces;
        var sum = 0;
        for (var m = 0; m < subspaces; m++) {
          sum += tables[m * book.words + codes[offset + m]];
        }
        scored.push([table.positions[i], centroid[cluster] + sum]);
      }
    });
    return scored.sort(byScoreThenPosition);
  };

  /* The positions whose exact rows the ranking reads. */
  ClusterVectors.prototype.reranked = function (query) {
    return this.coarse(query).slice(0, this.shards.manifest.vectors.rerank).map(function (pair) {
      return pair[0];
    });
  };

  /* {position: score} of the `count` best chunks of the probed clusters. */
  ClusterVectors.prototype.candidates = function (query, count) {
    var shards = this.shards;
    var per = shards.manifest.vectors.exactPerBundle;
    var scored = this.coarse(query);
    scored.slice(0, shards.manifest.vectors.rerank).forEach(function (pair) {
      var bundle = shards.exact.get(shards.bundles.name(pair[0], per));
      var row = shards.bundles.offset(pair[0], per);
      var sum = 0;
      for (var j = 0; j < bundle.dim; j++) {
        sum += bundle.matrix[row * bundle.dim + j] * query[j];
      }
      pair[1] = sum * bundle.scales[row];
    });
    scored.sort(byScoreThenPosition);
    var dense = {};
    scored.slice(0, count).forEach(function (pair) {
      dense[pair[0]] = pair[1];
    });
    return dense;
  };

  function readCluster(bytes, bundles) {
    var view = new DataView(bytes);
    var count = view.getUint32(8, true);
    var subspaces = view.getUint32(12, true);
    return {
      subspaces: subspaces,
      positions: new Uint32Array(bytes.slice(16, 16 + 4 * count)).map(function (id) {
        return bundles.position(id);
      }),
      codes: new Uint8Array(bytes, 16 + 4 * count, count * subspaces)
    };
  }

  /* centroids.bin: float32 scales, then rows of -7..7 two a byte (the even dimension in
     the low four bits; vector_pieces.read_centroids), as a VectorTable of int8 rows. */
  function readCentroids(bytes) {
    var view = new DataView(bytes);
    var count = view.getUint32(8, true);
    var dim = view.getUint32(12, true);
    var width = (dim + 1) >> 1;
    var packed = new Uint8Array(bytes, 16 + 4 * count, count * width);
    var matrix = new Int8Array(count * dim);
    for (var row = 0; row < count; row++) {
      for (var j = 0; j < dim; j++) {
        var pair = packed[row * width + (j >> 1)];
        var nibble = j & 1 ? pair >> 4 : pair & 0x0f;
        matrix[row * dim + j] = nibble > 7 ? nibble - 16 : nibble;
      }
    }
    return new RefdocEmbed.VectorTable(count, dim, new Float32Array(bytes.slice(16, 16 + 4 * count)), matrix);
  }

  /* codebook.bin (vector_pieces.codebook_bytes). */
  function readCodebook(bytes) {
    var view = new DataView(bytes);
    var subspaces = view.getUint32(8, true);
    var words = view.getUint32(12, true);
    var width = view.getUint32(16, true);
    return {
      subspaces: subspaces,
      words: words,
      width: width,
      scales: new Float32Array(bytes.slice(20, 20 + 4 * subspaces)),
      rows: new Int8Array(bytes, 20 + 4 * subspaces, subspaces * words * width)
    };
  }

  function readExact(bytes) {
    var view = new DataView(bytes);
    var count = view.getUint32(8, true);
    var dim = view.getUint32(12, true);
    return { dim: dim, scales: new Float32Array(bytes.slice(16, 16 + 4 * count)), matrix: new Int8Array(bytes, 16 + 4 * count, count * dim) };
  }

  /* A packed JSON piece's value. The bytes are gzip's unless a server sent the file with
     `Content-Encoding: gzip` (as some do for a ".gz" name) and the browser unpacked it. */
  function unpackJson(bytes) {
    var head = new Uint8Array(bytes, 0, Math.min(2, bytes.byteLength));
    if (head[0] !== 0x1f || head[1] !== 0x8b) {
      return JSON.parse(new TextDecoder().decode(bytes));
    }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  /* config: config.json; load(name, as) → promise. */
  function ShardedData(lunr, config, load) {
    if (!config.shards || config.shards.format !== FORMAT) {
      throw new Error("config.json: expected " + FORMAT + " search data; rebuild the site");
    }
    this.lunr = lunr;
    this.config = config;
    this.manifest = config.shards;
    this.load = load;
    this.keyNumber = new Map();
    var self = this;
    this.manifest.keys.forEach(function (key, number) {
      self.keyNumber.set(key, number);
    });
    this.fuzzyNumber = { prefix: new Map(), suffix: new Map() };
    ["prefix", "suffix"].forEach(function (side) {
      self.manifest.fuzzy[side].forEach(function (key, number) {
        self.fuzzyNumber[side].set(key, number);
      });
    });
    this.files = new Map();
    this.entries = new Map();
    this.built = -1;
    this.meta = null;
    this.rows = new Map();
    this.bundles = new Bundles(this.manifest.rowRuns, this.manifest.documents, this.manifest.idStride);
    this.stats = null;
    this.names = new Map();
    this.clusters = new Map();
    this.exact = new Map();
    this.centroids = null;
    this.codebook = null;
    this.embedder = null;
    this.modelRows = new Set();
    this.vocabShards = new Set();
    this.denseFor = null;
    this.searcher = new RefdocSearch.Searcher(lunr, {
      index: null,
      table: new ShardTable(this),
      settings: config.settings,
      stopWords: config.stopWords,
      commonTerms: config.commonTerms,
      glossary: config.glossary,
      loanwords: config.loanwords
    });
  }

  /* A file of the data folder, fetched once. */
  ShardedData.prototype.file = function (name, as) {
    if (!this.files.has(name)) {
      var packed = as === "json" && this.manifest.packed;
      var promise = packed ? this.load(name + packed, "bytes").then(unpackJson) : this.load(name, as);
      this.files.set(name, promise);
      promise.catch(function () {});
    }
    return this.files.get(name);
  };

  /* The number of the shard holding `term`: the longest key it starts with. */
  ShardedData.prototype.shardOf = function (term) {
    for (var length = term.length; length >= 0; length--) {
      var number = this.keyNumber.get(term.slice(0, length));
      if (number !== undefined) {
        return number;
      }
    }
    return -1;
  };

  /* The shards a prefix clause reads: the prefix's own and every key under it. */
  ShardedData.prototype.shardsUnder = function (prefix) {
    var out = [this.shardOf(prefix)];
    this.manifest.keys.forEach(function (key, number) {
      if (key.length > prefix.length && key.slice(0, prefix.length) === prefix) {
        out.push(number);
      }
    });
    return out;
  };

  ShardedData.prototype.fetchShards = function (numbers) {
    var self = this;
    return Promise.all(
      Array.from(new Set(numbers)).filter(function (n) { return n >= 0; }).map(function (number) {
        return self.file("terms/k" + keyName(self.manifest.keys[number]) + ".json", "json").then(function (entries) {
          if (!self.entries.has(number)) {
            self.entries.set(number, entries);
          }
        });
      })
    );
  };

  /* The terms one edit from `term` (five letters or more), found by its first and by its
     last two letters, and the shards that hold them. */
  ShardedData.prototype.typoShards = function (term) {
    var self = this;
    var lists = [["prefix", term.slice(0, FUZZY_KEY)], ["suffix", term.slice(-FUZZY_KEY)]];
    return Promise.all(
      lists.map(function (pair) {
        var number = self.fuzzyNumber[pair[0]].get(pair[1]);
        return number === undefined ? Promise.resolve([]) : self.file("fuzzy/" + pair[0].charAt(0) + "-" + keyName(pair[1]) + ".json", "json");
      })
    ).then(function (found) {
      var shards = [];
      found.forEach(function (terms) {
        terms.forEach(function (candidate) {
          if (withinOneEdit(term, candidate)) {
            shards.push(self.shardOf(candidate));
          }
        });
      });
      return shards;
    });
  };

  /* Fetches what the keyword ranking of `text` reads and makes its index; resolves to
     the searcher. */
  ShardedData.prototype.prepare = function (text) {
    var self = this;
    return this.fetch(text).then(function () {
      self.buildIndex();
      return self.searcher;
    });
  };

  /* Fetches what the keyword ranking of `text` reads (rank makes the index of it: a
     query superseded before its pieces arrive costs no CPU). */
  ShardedData.prototype.fetch = function (text) {
    var self = this;
    var searcher = this.searcher;
    var lunr = this.lunr;
    var needs = [
      this.file("meta.bin", "bytes").then(function (bytes) { self.meta = new Uint8Array(bytes); }),
      this.file("stats.json", "json").then(function (stats) { self.stats = self.stats || readStatistics(stats); })
    ];
    var words = ASCII.test(text) || !searcher.loanwordRules || searcher.loanwords
      ? Promise.resolve()
      : this.file("vocabulary.json", "json").then(function (vocabulary) {
          searcher.loanwords = searcher.loanwords || new RefdocSearch.Loanwords(searcher.loanwordRules, vocabulary);
        });
    needs.push(words.then(function () {
      var expanded = searcher.expand(text);
      var clauses = searcher.settings.clauses;
      var wanted = RefdocSearch.queryTerms(expanded, searcher.stopWords).filter(function (term) {
        return !searcher.commonTerms.has(RefdocSearch.stemOf(lunr, term));
      });
      var expand = wanted.filter(function (term) { return ASCII.test(term); }).length <= clauses.expand_max_terms;
      var shards = [];
      var typos = [];
      if (self.manifest.fields.indexOf("phrases") >= 0) {
        RefdocSearch.phraseTerms(text, searcher.stopWords).forEach(function (pair) {
          shards.push(self.shardOf(pair));
        });
      }
      wanted.forEach(function (term) {
        shards.push(self.shardOf(RefdocSearch.stemOf(lunr, term)));
        if (expand && term.length >= clauses.prefix_min_length) {
          shards.push.apply(shards, self.shardsUnder(term));
        }
        if (expand && term.length >= clauses.fuzzy_min_length && term.length <= clauses.fuzzy_max_length) {
          typos.push(self.typoShards(term));
        }
      });
      // The exact and prefix shards go out with the typo word lists, not after them: the
      // typo terms' shards are most often among them already, a round trip saved.
      var direct = self.fetchShards(shards);
      return Promise.all(typos).then(function (found) {
        var more = [];
        found.forEach(function (numbers) {
          more.push.apply(more, numbers);
        });
        return Promise.all([direct, self.fetchShards(more)]);
      });
    }));
    var name = RefdocSearch.queryName(text);
    if (name) {
      var bucket = nameBucket(RefdocSearch.nameKey(name[name.length - 1]), this.manifest.nameBuckets);
      needs.push(this.file("names/" + bucket + ".json", "json").then(function (entries) {
        if (!self.names.has(bucket)) {
          self.names.set(bucket, new Map(entries.map(function (entry) {
            return [entry[0], entry[1].map(function (c) { return { position: self.bundles.position(c[0]), symbol: c[1], path: c[2], kind: c[3] }; })];
          })));
        }
      }));
    }
    return Promise.all(needs);
  };

  /* stats.json: what every weight reads of the whole index (site_shards._global_statistics). */
  function readStatistics(stats) {
    var idf = new Map();
    stats.idf.forEach(function (pair) {
      idf.set(pair[0], pair[1]);
    });
    return { boosts: stats.boosts, k1: stats.k1, b: stats.b, means: stats.means, idf: idf };
  }

  /* Calls visit(f, id, tf, length) for each chunk of a term entry's field lists (gaps of
     stable ids, each followed by -tf when more than one, then the field's length). */
  function eachPosting(lists, visit) {
    for (var f = 0; f < lists.length; f++) {
      var list = lists[f];
      var id = -1;
      for (var i = 0; i < list.length; ) {
        id += list[i++];
        var tf = 1;
        if (list[i] < 0) {
          tf = -list[i++];
        }
        visit(f, id, tf, list[i++]);
      }
    }
  }

  /* The Lunr index of the terms fetched so far: what lunr.Index.load makes of the whole
     index, less the terms no fetched clause can reach (a query's score reads only the
     weights of the terms it matched, and the query vector's own length). The weights are
     lunr_index.posting_weights', made with the same operations in the same order and
     rounded as Python rounds (as refdoc-keyword.js does for a small site's index); the
     term numbers are the fetched terms' string order. */
  ShardedData.prototype.buildIndex = function () {
    if (this.built === this.entries.size) {
      return;
    }
    var lunr = this.lunr;
    var fields = this.manifest.fields;
    var decimals = this.manifest.decimals;
    var stats = this.stats;
    var bundles = this.bundles;
    var inverted = Object.create(null);
    var elements = Object.create(null);
    var all = [];
    this.entries.forEach(function (entries) {
      all.push.apply(all, entries);
    });
    all.sort(function (x, y) {
      return byString(x[0], y[0]);
    });
    var terms = [];
    all.forEach(function (entry, number) {
      var term = entry[0];
      var posting = { _index: number };
      var count = 0;
      eachPosting(entry[1], function () {
        count++;
      });
      var idf = stats.idf.get(count);
      fields.forEach(function (field) {
        posting[field] = {};
      });
      terms.push(term);
      eachPosting(entry[1], function (f, id, tf, length) {
        var position = bundles.position(id);
        posting[fields[f]][position] = NO_METADATA;
        var mean = stats.means[f];
        var norm = mean ? stats.k1 * (1 - stats.b + stats.b * (length / mean)) : stats.k1 * (1 - stats.b);
        var weight = RefdocKeyword.roundLikePython(((idf * ((stats.k1 + 1) * tf)) / (norm + tf)) * stats.boosts[f], decimals);
        var ref = fields[f] + "/" + position;
        var flat = elements[ref];
        if (flat === undefined) {
          elements[ref] = [number, weight];
        } else {
          flat.push(number, weight);
        }
      });
      inverted[term] = posting;
    });
    var fieldVectors = Object.create(null);
    Object.keys(elements).forEach(function (ref) {
      fieldVectors[ref] = new lunr.Vector(byTermNumber(elements[ref]));
    });
    var builder = new lunr.TokenSet.Builder();
    terms.forEach(function (term) {
      builder.insert(term);
    });
    builder.finish();
    this.searcher.index = new lunr.Index({
      fields: fields,
      fieldVectors: fieldVectors,
      invertedIndex: inverted,
      tokenSet: builder.root,
      pipeline: lunr.Pipeline.load(this.manifest.pipeline)
    });
    this.built = this.entries.size;
  };

  /* Fetches the rows of `positions` (the results to show). */
  ShardedData.prototype.prepareRows = function (positions) {
    var self = this;
    var per = this.manifest.rowsPerBundle;
    return Promise.all(Array.from(new Set(positions.map(function (p) { return self.bundles.name(p, per); }))).map(function (bundle) {
      return self.file("rows/" + bundle + ".json", "json").then(function (rows) {
        self.rows.set(bundle, rows);
      });
    }));
  };

  /* Fetches what the dense side of `text` reads: the model rows of its word pieces, the
     centroids, the probed clusters. Resolves false when the site has no vectors. */
  ShardedData.prototype.prepareDense = function (text) {
    var vectors = this.manifest.vectors;
    var model = this.manifest.model;
    if (!vectors || !model) {
      return Promise.resolve(false);
    }
    var self = this;
    var searcher = this.searcher;
    var expanded = searcher.expand(text);
    if (!this.embedder) {
      var header = model.header;
      var tokenizer = RefdocEmbed.WordPieceTokenizer.partial(model.specialIds["[UNK]"]);
      this.embedder = new RefdocEmbed.StaticEmbedder(header, new Float32Array(header.vocab_size), new Int8Array(header.vocab_size * header.dim), tokenizer);
      this.embedder.specialIds = (header.special_tokens || []).map(function (token) {
        return model.specialIds[token];
      });
    }
    var keys = new Set();
    RefdocEmbed.preTokenize(RefdocEmbed.normalize(expanded)).forEach(function (word) {
      keys.add(vocabKey(word));
      if (word.length > 1) {
        keys.add("##");
      }
    });
    var vocab = Promise.all(Array.from(keys).map(function (key) {
      var number = model.vocabShards.indexOf(key);
      if (number < 0) {
        return null;
      }
      var name = "model/vocab/" + number + ".txt";
      return self.file(name, "text").then(function (text) {
        if (!self.vocabShards.has(number)) {
          self.embedder.tokenizer.addPieces(text);
          self.vocabShards.add(number);
        }
      });
    }));
    var embedder = vocab.then(function () {
      var blocks = new Set(self.embedder.tokenIds(expanded).map(function (id) { return Math.floor(id / model.rowsPerBlock); }));
      return Promise.all(Array.from(blocks).map(function (block) {
        return self.file("model/blocks/" + block + ".bin", "bytes").then(function (bytes) {
          if (self.modelRows.has(block)) {
            return;
          }
          var view = new DataView(bytes);
          var count = view.getUint32(8, true);
          var dim = view.getUint32(12, true);
          var start = block * model.rowsPerBlock;
          self.embedder.scales.set(new Float32Array(bytes.slice(16, 16 + 4 * count)), start);
          self.embedder.matrix.set(new Int8Array(bytes, 16 + 4 * count, count * dim), start * dim);
          self.modelRows.add(block);
        });
      }));
    });
    var centroids = this.file("centroids.bin", "bytes").then(function (bytes) {
      self.centroids = self.centroids || readCentroids(bytes);
    });
    var codebook = this.file("codebook.bin", "bytes").then(function (bytes) {
      self.codebook = self.codebook || readCodebook(bytes);
    });
    return Promise.all([embedder, centroids, codebook]).then(function () {
      var clusters = new ClusterVectors(self);
      var query = self.embedder.embed(expanded);
      return Promise.all(clusters.probed(query).map(function (cluster) {
        return self.file("clusters/" + cluster + ".bin", "bytes").then(function (bytes) {
          if (!self.clusters.has(cluster)) {
            self.clusters.set(cluster, readCluster(bytes, self.bundles));
          }
        });
      })).then(function () {
        var per = vectors.exactPerBundle;
        var bundles = new Set(clusters.reranked(query).map(function (position) { return self.bundles.name(position, per); }));
        return Promise.all(Array.from(bundles).map(function (bundle) {
          return self.file("exact/" + bundle + ".bin", "bytes").then(function (bytes) {
            if (!self.exact.has(bundle)) {
              self.exact.set(bundle, readExact(bytes));
            }
          });
        }));
      }).then(function () {
        self.denseFor = expanded;
        return true;
      });
    });
  };

  /* The ranked hits of `text` ({position, score}), with the dense side when it was
     prepared for this text (else the keyword side alone, as before the vectors arrive). */
  ShardedData.prototype.rank = function (text, top, mode) {
    var searcher = this.searcher;
    this.buildIndex();
    var dense = this.denseFor !== null && this.denseFor === searcher.expand(text);
    searcher.embedder = dense ? this.embedder : null;
    searcher.vectors = dense ? new ClusterVectors(this) : null;
    return searcher.rank(text, top, mode);
  };

  /* Everything search(text) needs, fetched, then the hits with their rows. */
  ShardedData.prototype.search = function (text, top, mode) {
    var self = this;
    var dense = mode === "sparse" ? Promise.resolve(false) : null;
    return this.prepare(text)
      .then(function () {
        return dense || self.prepareDense(text);
      })
      .then(function () {
        var ranked = self.rank(text, top, mode);
        return self.prepareRows(ranked.map(function (hit) { return hit.position; })).then(function () {
          return ranked.map(function (hit) { return self.searcher.hit(hit); });
        });
      });
  };

  return { ShardedData: ShardedData, nameBucket: nameBucket, keyName: keyName, withinOneEdit: withinOneEdit, vocabKey: vocabKey };
});
