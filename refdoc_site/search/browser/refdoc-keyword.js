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

  /* A read-only table whose entries are made when first read (lunr reads an entry as
     table[key], and lists them with Object.keys only for a query of prohibited terms
     alone): `keys()` lists them, `make(key)` makes one or says undefined. */
  function lazyTable(keys, make) {
    var made = new Map();
    function entry(key) {
      if (!made.has(key)) {
        made.set(key, make(key));
      }
      return made.get(key);
    }
    return new Proxy(Object.create(null), {
      get: function (target, key) {
        return typeof key === "string" ? entry(key) : undefined;
      },
      has: function (target, key) {
        return typeof key === "string" && entry(key) !== undefined;
      },
      ownKeys: function () {
        return keys();
      },
      getOwnPropertyDescriptor: function (target, key) {
        var value = typeof key === "string" ? entry(key) : undefined;
        return value === undefined ? undefined : { value: value, writable: false, enumerable: true, configurable: true };
      }
    });
  }

  /* The lunr.Index of `data`, as lunr.Index.load would make it from serializedIndex(data),
     except that a term's posting and a field's vector are made when a query first reaches
     them: most are never read, and on django their half a million objects were most of
     the load after the weights. */
  function load(lunr, data) {
    var elements = vectorElements(data);
    var fieldOf = new Map();
    data.fields.forEach(function (field, f) {
      fieldOf.set(field, f);
    });
    var fieldVectors = lazyTable(
      function () {
        var refs = [];
        for (var position = 0; position < data.documents; position++) {
          for (var f = 0; f < data.fields.length; f++) {
            refs.push(data.fields[f] + "/" + position);
          }
        }
        return refs;
      },
      function (ref) {
        var slash = ref.lastIndexOf("/");
        var f = fieldOf.get(ref.slice(0, slash));
        var position = ref.slice(slash + 1);
        var perDocument = f === undefined ? undefined : elements[f];
        var found = /^(0|[1-9][0-9]*)$/.test(position) ? perDocument && perDocument[Number(position)] : undefined;
        return found ? new lunr.Vector(found) : undefined;
      }
    );
    var indexOf = new Map();
    data.terms.forEach(function (term, index) {
      indexOf.set(term, index);
    });
    var sorted = data.terms.slice().sort(byString);
    var builder = new lunr.TokenSet.Builder();
    sorted.forEach(function (term) {
      builder.insert(term);
    });
    builder.finish();
    var invertedIndex = lazyTable(
      function () {
        return sorted;
      },
      function (term) {
        return indexOf.has(term) ? posting(data, indexOf.get(term)) : undefined;
      }
    );
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
