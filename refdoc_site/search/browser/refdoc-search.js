/* refdoc-site search: the ranking of refdoc_site/search.py, step for step, in JavaScript.
 *
 * Runs in the site's search worker and under node (the parity test). It needs lunr.js
 * 2.3.9, passed in, and the search data the build wrote: the serialised Lunr index, the
 * chunk table, the shared settings and stop words, and optionally the chunk vectors and
 * the static embedding model (see refdoc-embed.js).
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory();
  } else {
    root.RefdocSearch = factory();
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  // An identifier, or a run of Japanese characters (ranges as in search/japanese.py).
  var WORD_RE = /[A-Za-z0-9_]+|[\u3041-\u309f\u30a0-\u30ff\u3005\u3006\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  var SCRIPT_PART_RE = /[\u30a0-\u30ff]+|[\u3041-\u309f\u3005\u3006\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  var HIRAGANA_ONLY = /^[\u3041-\u309f]+$/;
  var ASCII = /^[\x00-\x7f]*$/;
  var CAMEL_RE = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;

  function identifierParts(word) {
    var parts = [];
    word.split("_").forEach(function (piece) {
      var match;
      CAMEL_RE.lastIndex = 0;
      while ((match = CAMEL_RE.exec(piece)) !== null) {
        parts.push(match[0].toLowerCase());
      }
    });
    return parts;
  }

  /* A run of Japanese characters as index terms (search/japanese.py): cut where katakana
     meets kanji or hiragana, each part as overlapping character pairs, pairs of hiragana
     only dropped, a part of one kanji or katakana character kept. */
  function japaneseTerms(run) {
    var out = [];
    (run.match(SCRIPT_PART_RE) || []).forEach(function (part) {
      if (part.length === 1) {
        if (!HIRAGANA_ONLY.test(part)) {
          out.push(part);
        }
        return;
      }
      for (var i = 0; i + 1 < part.length; i++) {
        var pair = part.substr(i, 2);
        if (!HIRAGANA_ONLY.test(pair)) {
          out.push(pair);
        }
      }
    });
    return out;
  }

  /* Words as the index sees them: each identifier whole and split, lower-cased; Japanese
     as character pairs. */
  function terms(text) {
    var out = [];
    var words = text.match(WORD_RE) || [];
    words.forEach(function (word) {
      if (!ASCII.test(word)) {
        out.push.apply(out, japaneseTerms(word));
        return;
      }
      out.push(word.toLowerCase());
      var parts = identifierParts(word);
      if (parts.length > 1) {
        out.push.apply(out, parts);
      }
    });
    return out;
  }

  /* The query followed by the English words of the glossary terms found in it and, with
     loanwords, of the katakana words the glossary does not know (search/japanese.py:
     with_glossary). */
  function withGlossary(text, glossary, longest, loanwords) {
    return joinedWords(text, glossaryWords(text, glossary, longest, loanwords));
  }

  function joinedWords(text, groups) {
    var found = [];
    groups.forEach(function (words) {
      found.push.apply(found, words);
    });
    return found.length ? text + " " + found.join(" ") : text;
  }

  /* The English words of each Japanese word of a query the glossary or the loanwords
     explain, one list a word (search/japanese.py: glossary_words): scanned left to right,
     the longest entry starting at each position; a katakana word taken whole when the
     index has terms it sounds like and no entry is as long; other katakana gathered and
     looked up by sound when something ends it. */
  var LOANWORD = /[\u30a1-\u30fa\u30fc]+/y;

  function glossaryWords(text, glossary, longest, loanwords) {
    if (!(glossary || loanwords) || /^[\x00-\x7f]*$/.test(text)) {
      return [];
    }
    glossary = glossary || {};
    var found = [];
    var katakana = "";
    function endKatakanaWord() {
      if (katakana && loanwords) {
        var sounds = loanwords.english(katakana);
        if (sounds.length) {
          found.push(sounds);
        }
      }
      katakana = "";
    }
    var position = 0;
    while (position < text.length) {
      var length = Math.min(longest, text.length - position);
      while (length > 0 && glossary[text.substr(position, length)] === undefined) {
        length--;
      }
      var word = null;
      if (loanwords && !katakana) {
        LOANWORD.lastIndex = position;
        var match = LOANWORD.exec(text);
        word = match ? match[0] : null;
      }
      var english = word !== null && word.length > length ? loanwords.english(word) : [];
      if (english.length) {
        found.push(english);
        position += word.length;
      } else if (length > 0) {
        endKatakanaWord();
        found.push([glossary[text.substr(position, length)]]);
        position += length;
      } else {
        LOANWORD.lastIndex = position;
        if (LOANWORD.test(text)) {
          katakana += text.charAt(position);
        } else {
          endKatakanaWord();
        }
        position += 1;
      }
    }
    endKatakanaWord();
    return found;
  }

  /* Katakana loanwords matched by sound to the index's English terms (search/loanwords.py,
     rule for rule): both folded to a consonant skeleton, the nearest terms kept. */
  function compileFolds(pairs) {
    return pairs.map(function (pair) {
      return [new RegExp(pair[0], "g"), pair[1]];
    });
  }

  function withoutRuns(letters) {
    var out = "";
    for (var i = 0; i < letters.length; i++) {
      if (i === 0 || letters.charAt(i - 1) !== letters.charAt(i)) {
        out += letters.charAt(i);
      }
    }
    return out;
  }

  function editDistance(a, b) {
    var previous = [];
    for (var j = 0; j <= b.length; j++) {
      previous.push(j);
    }
    for (var i = 1; i <= a.length; i++) {
      var current = [i];
      for (j = 1; j <= b.length; j++) {
        current.push(Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a.charAt(i - 1) !== b.charAt(j - 1) ? 1 : 0)));
      }
      previous = current;
    }
    return previous[b.length];
  }

  function Loanwords(rules, vocabulary) {
    this.rules = rules;
    this.folds = {
      japanese: compileFolds(rules.japanese_folds.concat(rules.shared_folds)),
      english: compileFolds(rules.english_folds.concat(rules.shared_folds))
    };
    var table = Object.create(null);
    var self = this;
    var sorted = vocabulary.slice().sort();
    sorted.forEach(function (term, i) {
      if ((i > 0 && sorted[i - 1] === term) || term.length < rules.min_term_length || !/^[a-z]+$/.test(term)) {
        return;
      }
      var sounds = self.folded(term, "english");
      var key = self.skeleton(sounds);
      (table[key] = table[key] || []).push([term, sounds]);
    });
    this.termsBySkeleton = table;
  }

  Loanwords.prototype.reading = function (katakana) {
    var kana = this.rules.kana;
    var out = "";
    var position = 0;
    while (position < katakana.length) {
      var pair = position + 1 < katakana.length ? kana[katakana.substr(position, 2)] : undefined;
      if (pair !== undefined) {
        out += pair;
        position += 2;
        continue;
      }
      var single = kana[katakana.charAt(position)];
      out += single === undefined ? "" : single;
      position += 1;
    }
    return out;
  };

  Loanwords.prototype.folded = function (spelling, side) {
    this.folds[side].forEach(function (fold) {
      spelling = spelling.replace(fold[0], fold[1]);
    });
    return withoutRuns(spelling);
  };

  Loanwords.prototype.skeleton = function (sounds) {
    var vowels = this.rules.vowels;
    var consonants = "";
    for (var i = 0; i < sounds.length; i++) {
      if (vowels.indexOf(sounds.charAt(i)) < 0) {
        consonants += sounds.charAt(i);
      }
    }
    return withoutRuns(consonants);
  };

  Loanwords.prototype.english = function (katakana) {
    var rules = this.rules;
    var sounds = this.folded(this.reading(katakana), "japanese");
    var wanted = this.skeleton(sounds);
    if (wanted.length < rules.min_consonants) {
      return [];
    }
    var allowed = Math.floor(rules.distance_share * wanted.length);
    var ranked = [];
    var table = this.termsBySkeleton;
    Object.keys(table).forEach(function (candidate) {
      if (Math.abs(candidate.length - wanted.length) > allowed) {
        return;
      }
      var distance = editDistance(wanted, candidate);
      if (distance <= allowed) {
        table[candidate].forEach(function (entry) {
          ranked.push([distance, editDistance(sounds, entry[1]), entry[0]]);
        });
      }
    });
    ranked.sort(function (a, b) {
      return a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
    });
    var best = ranked.length ? ranked[0][0] : 0;
    return ranked
      .filter(function (entry) {
        return entry[0] === best;
      })
      .slice(0, rules.max_terms)
      .map(function (entry) {
        return entry[2];
      });
  };

  /* Pairs of neighbouring words (no_such, such_command): what finds a quoted message. */
  function phraseTerms(text, stopWords) {
    var words = text.toLowerCase().match(/[a-z0-9]+/g) || [];
    var pairs = [];
    for (var i = 1; i < words.length; i++) {
      if (!stopWords[words[i - 1]] || !stopWords[words[i]]) {
        pairs.push(words[i - 1] + "_" + words[i]);
      }
    }
    return pairs;
  }

  /* Distinct query terms in order, without stop words and single letters or digits (a
     single kanji is a word). */
  function queryTerms(text, stopWords) {
    var seen = Object.create(null);
    var out = [];
    terms(text).forEach(function (term) {
      if ((term.length > 1 || !ASCII.test(term)) && !stopWords[term] && !seen[term]) {
        seen[term] = true;
        out.push(term);
      }
    });
    return out;
  }

  function minMax(scores) {
    var keys = Object.keys(scores);
    if (!keys.length) {
      return {};
    }
    var low = Infinity;
    var high = -Infinity;
    keys.forEach(function (key) {
      low = Math.min(low, scores[key]);
      high = Math.max(high, scores[key]);
    });
    var out = {};
    keys.forEach(function (key) {
      out[key] = high === low ? 1 : (scores[key] - low) / (high - low);
    });
    return out;
  }

  function byScore(scores) {
    return Object.keys(scores)
      .map(Number)
      .sort(function (a, b) {
        return scores[b] - scores[a] || a - b;
      });
  }

  /* Weighted sum of min-max normalised scores over each side's top candidates. */
  function fuse(sparse, dense, weights) {
    var sparseTop = {};
    byScore(sparse)
      .slice(0, weights.sparse_candidates)
      .forEach(function (position) {
        sparseTop[position] = sparse[position];
      });
    var s = minMax(sparseTop);
    var d = minMax(dense);
    var weight = weights.sparse_weight;
    var fused = {};
    Object.keys(s)
      .concat(Object.keys(d))
      .forEach(function (key) {
        fused[key] = weight * (s[key] || 0) + (1 - weight) * (d[key] || 0);
      });
    return fused;
  }

  /* order with the chunks that hold the query verbatim in a string literal (an error
     message pasted into the box) moved to the front, in their order (search/matches.py's
     messages_first): the words are exact, so the dense side re-ranks only below them. */
  /* Whether a query's words ask for tests, examples or release notes (asides.py). */
  function asksForAsides(terms, fusion) {
    return (fusion.aside_cues || []).some(function (word) { return terms.indexOf(word) >= 0; });
  }

  function messagesFirst(messages, order) {
    if (!messages.size) {
      return order;
    }
    return order.filter(function (position) {
      return messages.has(position);
    }).concat(order.filter(function (position) {
      return !messages.has(position);
    }));
  }

  /* Names first (search/names.py, rule for rule): a query that is a definition's name
     puts the definitions it names first. */
  var DEFINITION_KINDS = ["class", "function", "method"];
  var DOTTED_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
  var PLAIN_WORD = /^[A-Za-z][A-Za-z0-9]*$/;
  var MAX_SPELLED_WORDS = 3;

  /* Case and inner underscores ignored; leading ones kept (echo is not _echo). */
  function nameKey(name) {
    var bare = name.replace(/^_+/, "");
    return name.slice(0, name.length - bare.length) + bare.replace(/_/g, "").toLowerCase();
  }

  /* The parts of a query written as a name (click.Context → click, Context), else null. */
  function queryName(text) {
    text = text.trim();
    if (text.slice(-2) === "()") {
      text = text.slice(0, -2).trim();
    }
    if (DOTTED_NAME.test(text)) {
      return text.split(".");
    }
    var words = text.split(/\s+/).filter(Boolean);
    if (words.length >= 2 && words.length <= MAX_SPELLED_WORDS && words.every(function (word) { return PLAIN_WORD.test(word); })) {
      return [words.join("")];
    }
    return null;
  }

  /* No part of the qualified name is private (_x) or a dunder (__x__). */
  function isPublic(symbol) {
    return !symbol.split(".").some(function (part) {
      return part.charAt(0) === "_";
    });
  }

  /* Where a definition ranks among those the query names (smaller first), or null. */
  function matchOrder(query, symbol, path, kind) {
    var parts = symbol.split(".");
    var last = query[query.length - 1];
    if (DEFINITION_KINDS.indexOf(kind) < 0 || nameKey(parts[parts.length - 1]) !== nameKey(last)) {
      return null;
    }
    var qualifiers = query.slice(0, -1);
    var owners = parts.slice(0, -1);
    while (qualifiers.length && owners.length && nameKey(qualifiers[qualifiers.length - 1]) === nameKey(owners[owners.length - 1])) {
      qualifiers.pop();
      owners.pop();
    }
    if (qualifiers.length) {
      var pieces = path.split("/").filter(Boolean);
      pieces[pieces.length - 1] = pieces[pieces.length - 1].replace(/(.)\.[^.]*$/, "$1");
      var folders = new Set(pieces.map(nameKey));
      if (!qualifiers.every(function (qualifier) { return folders.has(nameKey(qualifier)); })) {
        return null;
      }
    }
    return [owners.length ? 1 : 0, isPublic(symbol) ? 0 : 1, parts[parts.length - 1] === last ? 0 : 1, DEFINITION_KINDS.indexOf(kind)];
  }

  function compareLists(a, b) {
    for (var i = 0; i < a.length; i++) {
      if (a[i] !== b[i]) {
        return a[i] < b[i] ? -1 : 1;
      }
    }
    return 0;
  }

  /* What the ranking reads of the chunks, from the whole chunk table (a small site):
     a chunk's kind, whether its name is public, the symbol it belongs to (the collapse
     keeps one chunk a symbol), the definitions by the key of their name, and its row.
     A large site's table (refdoc-shards.js) reads the same from the pieces it fetched. */
  function ChunkTable(chunks) {
    this.chunks = chunks;
    this.names = null;
  }

  ChunkTable.prototype.kind = function (position) {
    return this.chunks[position].kind;
  };

  ChunkTable.prototype.isAside = function (position) {
    return !!this.chunks[position].aside;
  };

  ChunkTable.prototype.isPublic = function (position) {
    return isPublic(this.chunks[position].symbol);
  };

  ChunkTable.prototype.group = function (position) {
    var chunk = this.chunks[position];
    return chunk.path + "\u0000" + chunk.symbol;
  };

  ChunkTable.prototype.row = function (position) {
    return this.chunks[position];
  };

  /* [{position, symbol, path, kind}] of the chunks whose own (last) name has `key`. */
  ChunkTable.prototype.named = function (key) {
    if (!this.names) {
      var table = Object.create(null);
      this.chunks.forEach(function (chunk, position) {
        var parts = chunk.symbol.split(".");
        var name = nameKey(parts[parts.length - 1]);
        (table[name] = table[name] || []).push({ position: position, symbol: chunk.symbol, path: chunk.path, kind: chunk.kind });
      });
      this.names = table;
    }
    return this.names[key] || [];
  };

  /* data: {index (a lunr.Index), chunks or table (a ChunkTable or one like it), settings,
     stopWords, commonTerms (arrays), glossary?, loanwords?, vectors?, embedder?}. Common terms are stemmed and left out of
     the sparse query; the glossary maps Japanese terms to English words; loanwords holds
     the rules that read other katakana words as the index's English terms. */
  function Searcher(lunr, data) {
    this.lunr = lunr;
    this.index = data.index;
    this.chunks = data.chunks || null;
    this.table = data.table || new ChunkTable(data.chunks);
    this.settings = data.settings;
    this.stopWords = Object.create(null);
    var stop = this.stopWords;
    data.stopWords.forEach(function (word) {
      stop[word] = true;
    });
    this.commonTerms = new Set(data.commonTerms || []);
    this.glossary = Object.create(null);
    var glossary = this.glossary;
    var longest = 0;
    Object.keys(data.glossary || {}).forEach(function (source) {
      glossary[source] = data.glossary[source];
      longest = Math.max(longest, source.length);
    });
    this.glossaryLongest = longest;
    this.loanwordRules = data.loanwords || null;
    this.loanwords = null;
    this.vectors = data.vectors || null;
    this.embedder = data.embedder || null;
  }

  Searcher.prototype.sparseScores = function (text, phraseText) {
    return this.sparseMatches(text, phraseText).scores;
  };

  function stemOf(lunr, term) {
    return lunr.stemmer(new lunr.Token(term)).toString();
  }

  var NO_MATCHES = Object.freeze({ scores: {}, messages: new Set(), coverage: null });

  /* The sparse side's answer (search/matches.py's SparseMatches): Lunr scores by position; the
     positions whose code holds the query as a message (every word pair of the query, at
     least message_min_pairs, among its string literals' pairs: the phrases field); and,
     for a description (more English words than expand_max_terms), the share of its
     distinct stemmed words each position holds, else null. */
  Searcher.prototype.sparseMatches = function (text, phraseText, alternatives) {
    var lunr = this.lunr;
    var common = this.commonTerms;
    var wanted = queryTerms(text, this.stopWords).filter(function (term) {
      return !common.has(stemOf(lunr, term));
    });
    if (!wanted.length) {
      return NO_MATCHES;
    }
    var clauses = this.settings.clauses;
    // Japanese pairs, many to a word and too short to expand, are not counted.
    var english = wanted.filter(function (term) { return ASCII.test(term); });
    var expand = english.length <= clauses.expand_max_terms;
    var words = this.coverageWords(wanted, phraseText || text, alternatives || []);
    var phrases = this.index.fields.indexOf("phrases") >= 0 ? phraseTerms(phraseText || text, this.stopWords) : [];
    var results = this.index.query(function (query) {
      phrases.forEach(function (pair) {
        query.term(pair, { boost: clauses.phrase, usePipeline: false, fields: ["phrases"] });
      });
      wanted.forEach(function (term) {
        query.term(term, { boost: clauses.exact });
        if (!expand) {
          return;
        }
        if (term.length >= clauses.prefix_min_length) {
          query.term(term, { boost: clauses.prefix, usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING });
        }
        /* typo matching costs Lunr about the square of the term's length: ranking.py's rule */
        if (term.length >= clauses.fuzzy_min_length && term.length <= clauses.fuzzy_max_length) {
          query.term(term, { boost: clauses.fuzzy, usePipeline: false, editDistance: 1 });
        }
      });
    });
    var scores = {};
    results.forEach(function (result) {
      scores[Number(result.ref)] = result.score;
    });
    var messages = new Set();
    var coverage = expand || !words.length ? null : {};
    var pairs = Array.from(new Set(phrases));
    results.forEach(function (result) {
      var metadata = result.matchData.metadata;
      var position = Number(result.ref);
      if (pairs.length >= clauses.message_min_pairs && pairs.every(function (pair) { return metadata[pair] !== undefined && "phrases" in metadata[pair]; })) {
        messages.add(position);
      }
      if (coverage) {
        coverage[position] = words.filter(function (stems) {
          return stems.some(function (stemmed) { return stemmed in metadata; });
        }).length / words.length;
      }
    });
    return { scores: scores, messages: messages, coverage: coverage };
  };

  /* Scores scaled by coverage ** power (search/matches.py's SparseMatches.covered): BM25 adds up
     each word's weight, so a chunk that repeats one rare word of a description outscores
     one that holds most of it. */
  function covered(matches, power) {
    if (!matches.coverage || !power) {
      return matches.scores;
    }
    var out = {};
    Object.keys(matches.scores).forEach(function (key) {
      out[key] = matches.scores[key] * Math.pow(matches.coverage[key], power);
    });
    return out;
  }

  Searcher.prototype.denseScores = function (text) {
    var dense = {};
    if (!this.vectors || !this.embedder) {
      return dense;
    }
    var query = this.embedder.embed(text);
    if (this.vectors.candidates) {
      // A large site's vectors: the chunks of the clusters nearest the query (refdoc-shards.js).
      return this.vectors.candidates(query, this.settings.fusion.dense_candidates);
    }
    var all = this.vectors.scores(query);
    var order = Array.prototype.map
      .call(all, function (_, i) {
        return i;
      })
      .sort(function (a, b) {
        return all[b] - all[a] || a - b;
      })
      .slice(0, this.settings.fusion.dense_candidates);
    order.forEach(function (position) {
      dense[position] = all[position];
    });
    return dense;
  };

  Searcher.prototype.expand = function (text) {
    return joinedWords(text, this.glossaryWords(text));
  };

  /* The English words of each Japanese word of the query (glossaryWords). */
  Searcher.prototype.glossaryWords = function (text) {
    if (this.loanwordRules && !this.loanwords && !ASCII.test(text)) {
      // Read once, on the first query that is not plain ASCII: the index's own terms.
      this.loanwords = new Loanwords(this.loanwordRules, Object.keys(this.index.invertedIndex));
    }
    return glossaryWords(text, this.glossaryLongest ? this.glossary : null, this.glossaryLongest, this.loanwords);
  };

  /* The words coverage counts, each as its stemmed forms (search/ranking.py's _coverage_words):
     the English words the query was typed with, and one for each Japanese word the
     glossary or the index's terms explained (any of its English words holds it). */
  Searcher.prototype.coverageWords = function (wanted, typed, alternatives) {
    var lunr = this.lunr;
    var stopWords = this.stopWords;
    var queried = new Set(wanted.map(function (term) { return stemOf(lunr, term); }));
    var candidates;
    if (!alternatives.length) {
      candidates = wanted.filter(function (term) { return ASCII.test(term); }).map(function (term) { return [stemOf(lunr, term)]; });
    } else {
      candidates = queryTerms(typed, stopWords)
        .filter(function (term) { return ASCII.test(term) && queried.has(stemOf(lunr, term)); })
        .map(function (term) { return [stemOf(lunr, term)]; });
      alternatives.forEach(function (words) {
        var stems = [];
        queryTerms(words.join(" "), stopWords).forEach(function (term) {
          var stemmed = stemOf(lunr, term);
          if (queried.has(stemmed) && stems.indexOf(stemmed) < 0) {
            stems.push(stemmed);
          }
        });
        candidates.push(stems);
      });
    }
    var seen = new Set();
    return candidates.filter(function (stems) {
      var key = stems.join("\u0000");
      if (!stems.length || seen.has(key)) {
        return false;
      }
      seen.add(key);
      return true;
    });
  };

  /* Chunks that name no symbol rank below functions and classes on equal evidence; a
     query that names the kind it wants lifts chunks of that kind (as search.py does). */
  Searcher.prototype.weighKinds = function (scores, terms) {
    var fusion = this.settings.fusion;
    var weights = Object.assign({}, fusion.kind_weights || {});
    var words = new Set(terms);
    (fusion.kind_cues || []).forEach(function (cue) {
      if (cue.words.some(function (word) { return words.has(word); })) {
        cue.kinds.forEach(function (kind) {
          weights[kind] = (weights[kind] === undefined ? 1.0 : weights[kind]) * fusion.kind_cue_weight;
        });
      }
    });
    // Tests, examples and release notes (asides.py marks them) weigh less unless asked for.
    var aside = asksForAsides(terms, fusion) ? 1.0 : fusion.aside_weight;
    var table = this.table;
    Object.keys(scores).forEach(function (key) {
      var position = Number(key);
      var weight = weights[table.kind(position)];
      if (weight !== undefined) {
        scores[key] = scores[key] * weight;
      }
      if (aside !== undefined && table.isAside(position)) {
        scores[key] = scores[key] * aside;
      }
    });
    return scores;
  };

  /* A score to 9 decimals, as the ranking compares it (search/ranking.py tie_level): the
     same terms' weights added in another order tie. */
  function tieLevel(score) {
    return Math.floor(score * 1e9 + 0.5);
  }

  /* Positions best first; on equal scores public definitions before private and dunder ones. */
  Searcher.prototype.byScore = function (scores) {
    var table = this.table;
    return Object.keys(scores)
      .map(Number)
      .sort(function (a, b) {
        return tieLevel(scores[b]) - tieLevel(scores[a]) || !table.isPublic(a) - !table.isPublic(b) || a - b;
      });
  };

  /* order with the definitions a name query names moved to the front; those no side
     scored join combined at 0. */
  Searcher.prototype.namesFirst = function (query, combined, order, own) {
    var name = queryName(query);
    if (!name) {
      return order;
    }
    var named = [];
    this.table.named(nameKey(name[name.length - 1])).forEach(function (chunk) {
      var position = chunk.position;
      if (own && !own(position)) {
        return;
      }
      var rank = matchOrder(name, chunk.symbol, chunk.path, chunk.kind);
      if (rank) {
        if (combined[position] === undefined) {
          combined[position] = 0;
        }
        named.push(rank.concat([-combined[position], position]));
      }
    });
    named.sort(compareLists);
    var moved = Object.create(null);
    var first = named.map(function (entry) {
      var position = entry[entry.length - 1];
      moved[position] = true;
      return position;
    });
    return first.concat(order.filter(function (position) {
      return !moved[position];
    }));
  };

  /* Ranked hits, one per symbol; mode is "sparse", "dense" or "fused". */
  Searcher.prototype.search = function (text, top, mode) {
    var self = this;
    return this.rank(text, top, mode).map(function (ranked) {
      return self.hit(ranked);
    });
  };

  /* A ranked {position, score} with its chunk's row: path, symbol, kind, lines. */
  Searcher.prototype.hit = function (ranked) {
    var chunk = this.table.row(ranked.position);
    return {
      path: chunk.path,
      symbol: chunk.symbol,
      kind: chunk.kind,
      start_line: chunk.start_line,
      end_line: chunk.end_line,
      score: ranked.score,
      position: ranked.position
    };
  };

  /* [{position, score}] best first, one per symbol: what search shows, before the rows. */
  Searcher.prototype.rank = function (text, top, mode) {
    mode = mode || "fused";
    var original = text;
    var alternatives = this.glossaryWords(original);
    text = joinedWords(original, alternatives);
    var matches = mode === "sparse" || mode === "fused" ? this.sparseMatches(text, original, alternatives) : NO_MATCHES;
    var sparse = matches.scores;
    var dense = mode === "dense" || mode === "fused" ? this.denseScores(text) : {};
    var combined;
    if (mode === "fused") {
      var weights = Object.assign({}, this.settings.fusion);
      sparse = covered(matches, weights.coverage_power);
      combined = this.weighKinds(fuse(sparse, dense, weights), queryTerms(text, this.stopWords));
    } else {
      combined = Object.keys(sparse).length ? sparse : dense;
    }
    var order = this.byScore(combined);
    var table = this.table;
    if (mode === "fused") {
      // A test or example quoting the message or naming the definition does not jump
      // ahead of the code: it keeps its weighed place unless the query asks for it.
      var keepAsides = asksForAsides(queryTerms(text, this.stopWords), this.settings.fusion);
      var own = function (position) { return keepAsides || !table.isAside(position); };
      var messages = new Set();
      matches.messages.forEach(function (position) {
        if (own(position)) {
          messages.add(position);
        }
      });
      order = messagesFirst(messages, order);
      order = this.namesFirst(original, combined, order, own);
    }
    var seen = Object.create(null);
    var hits = [];
    order.some(function (position) {
      var key = table.group(position);
      if (!seen[key]) {
        seen[key] = true;
        hits.push({ score: combined[position], position: position });
      }
      return hits.length === top;
    });
    return hits;
  };

  return {
    terms: terms,
    japaneseTerms: japaneseTerms,
    queryTerms: queryTerms,
    phraseTerms: phraseTerms,
    queryName: queryName,
    matchOrder: matchOrder,
    withGlossary: withGlossary,
    glossaryWords: glossaryWords,
    Loanwords: Loanwords,
    identifierParts: identifierParts,
    fuse: fuse,
    nameKey: nameKey,
    stemOf: stemOf,
    ChunkTable: ChunkTable,
    Searcher: Searcher
  };
});
