/* refdoc-site keyword index: the compact form the site ships, expanded into Lunr's own.
 *
 * refdoc_site/search/lunr_index.py writes `compact_index` (format "refdoc-keyword/1"):
 * terms in Lunr's `_index` order, per term and field the documents as gaps (each followed
 * by -tf when the term is there more than once), the field lengths, the boosts and one idf
 * per posting count. The weights are recomputed here with the operations of the Python
 * side in the same order and rounded as Python's round() does, so the serialised index
 * rebuilt here is the one Python ranks with, to the bit, and lunr.Index.load reads it.
 *
 * Runs in the site's search worker and under node (the parity tests).
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory();
  } else {
    root.RefdocKeyword = factory();
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var FORMAT = "refdoc-keyword/1";
  // Lunr keeps no metadata per posting here (no whitelist): one empty object serves them
  // all (lunr only copies its keys), which spares django's index 0.4 million objects.
  var NO_METADATA = Object.freeze({});

  /* A rounding of Python's round(x, decimals) for x >= 0 and scale = 10^decimals: the
     decimal nearest to x's exact value, a tie to the even one. Away from a half, x · scale
     (off by far less than 1e-7) rounds to the right whole number. Near one, toFixed rounds
     the exact value but sends a tie up; x is a tie only when x · 2^(decimals+1) is an odd
     whole number (x = (2k+1) / (2 · 10^decimals) with 5^decimals dividing 2k+1), and then
     the even neighbour is taken. */
  function roundLikePython(x, decimals) {
    var scale = Math.pow(10, decimals);
    var scaled = x * scale;
    if (Math.abs(scaled - Math.floor(scaled) - 0.5) > 1e-7) {
      return Math.round(scaled) / scale;
    }
    if ((x * Math.pow(2, decimals + 1)) % 2 === 1) {
      var lower = Math.floor(scaled);
      return (lower % 2 === 0 ? lower : lower + 1) / scale;
    }
    return Number(x.toFixed(decimals));
  }

  function meanLengths(data) {
    return data.lengths.map(function (lengths) {
      var total = 0;
      for (var i = 0; i < lengths.length; i++) {
        total += lengths[i];
      }
      return data.documents ? total / data.documents : 0;
    });
  }

  /* Calls visit(index, field, position, tf) for every posting, terms in `_index` order,
     documents in order; returns the number of postings of each term. */
  function eachPosting(data, index, visit) {
    var lists = data.postings[index];
    for (var f = 0; f < lists.length; f++) {
      var gaps = lists[f];
      var position = -1;
      for (var g = 0; g < gaps.length; g++) {
        position += gaps[g];
        var tf = 1;
        if (g + 1 < gaps.length && gaps[g + 1] < 0) {
          tf = -gaps[++g];
        }
        visit(f, position, tf);
      }
    }
  }

  function postingCount(lists) {
    var count = 0;
    for (var f = 0; f < lists.length; f++) {
      for (var g = 0; g < lists[f].length; g++) {
        count += lists[f][g] > 0 ? 1 : 0;
      }
    }
    return count;
  }

  /* elements[field][position]: the field vector's [term index, weight, ...], the weights
     computed with the operations of lunr_index.py in the same order. */
  function vectorElements(data) {
    if (data.format !== FORMAT) {
      throw new Error("index.json: expected the " + FORMAT + " format, got " + String(data.format) + "; rebuild the site");
    }
    var k1 = data.k1;
    var b = data.b;
    var means = meanLengths(data);
    var idfByCount = new Map();
    data.idf.forEach(function (pair) {
      idfByCount.set(pair[0], pair[1]);
    });
    var elements = data.fields.map(function () {
      var perDocument = new Array(data.documents);
      for (var i = 0; i < data.documents; i++) {
        perDocument[i] = [];
      }
      return perDocument;
    });
    for (var index = 0; index < data.terms.length; index++) {
      var idf = idfByCount.get(postingCount(data.postings[index]));
      eachPosting(data, index, function (f, position, tf) {
        var mean = means[f];
        var length = data.lengths[f][position];
        var norm = mean ? k1 * (1 - b + b * (length / mean)) : k1 * (1 - b);
        elements[f][position].push(index, roundLikePython(((idf * ((k1 + 1) * tf)) / (norm + tf)) * data.boosts[f], data.decimals));
      });
    }
    return elements;
  }

  /* Lunr's posting of term `index`: its _index and, per field, the documents with it. */
  function posting(data, index) {
    var result = { _index: index };
    data.fields.forEach(function (field) {
      result[field] = {};
    });
    eachPosting(data, index, function (f, position) {
      result[data.fields[f]][position] = NO_METADATA;
    });
    return result;
  }

  function byString(x, y) {
    return x < y ? -1 : x > y ? 1 : 0;
  }

  /* The serialised Lunr index (version, fields, fieldVectors, invertedIndex, pipeline)
     the compact `data` stands for; invertedIndex in JavaScript's string order, which
     lunr's TokenSet.Builder requires. */
  function serializedIndex(data) {
    var elements = vectorElements(data);
    var inverted = data.terms.map(function (term, index) {
      return [term, posting(data, index)];
    });
    inverted.sort(function (x, y) {
      return byString(x[0], y[0]);
    });
    var vectors = [];
    for (var position = 0; position < data.documents; position++) {
      for (var f = 0; f < data.fields.length; f++) {
        vectors.push([data.fields[f] + "/" + position, elements[f][position]]);
      }
    }
    return { version: data.version, fields: data.fields, fieldVectors: vectors, invertedIndex: inverted, pipeline: data.pipeline };
  }

  /* The lunr.Index of `data`, as lunr.Index.load would make it from serializedIndex(data),
     except that a term's posting is decoded when a query first reaches it: most terms are
     never searched, and their 0.4 million objects on django were a third of the load. */
  function load(lunr, data) {
    var elements = vectorElements(data);
    var fieldVectors = {};
    for (var position = 0; position < data.documents; position++) {
      for (var f = 0; f < data.fields.length; f++) {
        fieldVectors[data.fields[f] + "/" + position] = new lunr.Vector(elements[f][position]);
      }
    }
    var indexOf = new Map();
    data.terms.forEach(function (term, index) {
      indexOf.set(term, index);
    });
    var builder = new lunr.TokenSet.Builder();
    data.terms.slice().sort(byString).forEach(function (term) {
      builder.insert(term);
    });
    builder.finish();
    var decoded = new Map();
    // lunr reads a posting as invertedIndex[term] and nothing else.
    var invertedIndex = new Proxy(Object.create(null), {
      get: function (target, term) {
        if (!decoded.has(term) && indexOf.has(term)) {
          decoded.set(term, posting(data, indexOf.get(term)));
        }
        return decoded.get(term);
      }
    });
    return new lunr.Index({
      fields: data.fields,
      fieldVectors: fieldVectors,
      invertedIndex: invertedIndex,
      tokenSet: builder.root,
      pipeline: lunr.Pipeline.load(data.pipeline)
    });
  }

  return { serializedIndex: serializedIndex, load: load, roundLikePython: roundLikePython };
});
