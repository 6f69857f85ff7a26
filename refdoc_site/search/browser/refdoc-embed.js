/* refdoc-site browser embedder: the static model of refdoc_site/embed.py in JavaScript.
 *
 * WordPiece tokenizer (refdoc_site/wordpiece.py, step for step), the token table read
 * from the model file, and the chunk vectors (int8 rows with one scale each) that the
 * query is compared with. Runs in the search worker and under node (parity tests).
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory();
  } else {
    root.RefdocEmbed = factory();
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var UNK = "[UNK]";
  var MAX_WORD_CHARS = 100;
  var MODEL_MAGIC = "RDEMB\u0000\u0001\u0000";
  var VECTORS_MAGIC = "RDVEC\u0000\u0001\u0000";
  var WHITESPACE = new Set(
    "\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007" +
      "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
  );
  var CONTROL = /^[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Cs}]$/u;
  var PUNCTUATION = /^\p{P}$/u;
  var MARK = /^\p{Mn}$/u;
  var CJK_RANGES = [
    [0x4e00, 0x9fff],
    [0x3400, 0x4dbf],
    [0x20000, 0x2a6df],
    [0x2a700, 0x2b73f],
    [0x2b740, 0x2b81f],
    [0x2b820, 0x2ceaf],
    [0xf900, 0xfaff],
    [0x2f800, 0x2fa1f]
  ];

  function isControl(char) {
    return char !== "\t" && char !== "\n" && char !== "\r" && CONTROL.test(char);
  }

  function isPunctuation(char) {
    var code = char.codePointAt(0);
    if ((code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126)) {
      return true;
    }
    return PUNCTUATION.test(char);
  }

  function isCjk(char) {
    var code = char.codePointAt(0);
    return CJK_RANGES.some(function (range) {
      return code >= range[0] && code <= range[1];
    });
  }

  /* Clean, space out CJK ideographs, strip accents, lower-case. */
  function normalize(text) {
    var out = [];
    for (var char of text) {
      if (char === "\u0000" || char === "\ufffd" || isControl(char)) {
        continue;
      }
      if (WHITESPACE.has(char)) {
        out.push(" ");
      } else if (isCjk(char)) {
        out.push(" " + char + " ");
      } else {
        out.push(char);
      }
    }
    var decomposed = out.join("").normalize("NFD");
    var result = [];
    for (var c of decomposed) {
      if (!MARK.test(c)) {
        result.push(c.toLowerCase());
      }
    }
    return result.join("");
  }

  /* Words split at whitespace; each punctuation character a word of its own. */
  function preTokenize(normalized) {
    var words = [];
    var current = "";
    for (var char of normalized) {
      if (WHITESPACE.has(char)) {
        if (current) {
          words.push(current);
          current = "";
        }
      } else if (isPunctuation(char)) {
        if (current) {
          words.push(current);
          current = "";
        }
        words.push(char);
      } else {
        current += char;
      }
    }
    if (current) {
      words.push(current);
    }
    return words;
  }

  function WordPieceTokenizer(tokens) {
    this.tokens = tokens;
    this.ids = new Map();
    for (var i = 0; i < tokens.length; i++) {
      if (!this.ids.has(tokens[i])) {
        this.ids.set(tokens[i], i);
      }
    }
    if (!this.ids.has(UNK)) {
      throw new Error("vocabulary has no " + UNK + " token");
    }
    this.unkId = this.ids.get(UNK);
    this.cache = new Map();
  }

  WordPieceTokenizer.fromText = function (text) {
    var lines = text.split("\n");
    if (lines.length && lines[lines.length - 1] === "") {
      lines.pop();
    }
    return new WordPieceTokenizer(
      lines.map(function (line) {
        return line.replace(/\r$/, "");
      })
    );
  };

  /* A tokenizer whose vocabulary arrives in parts (a large site's vocabulary shards):
     each part is added before a word that may use its pieces is encoded. */
  WordPieceTokenizer.partial = function (unkId) {
    var tokenizer = Object.create(WordPieceTokenizer.prototype);
    tokenizer.tokens = null;
    tokenizer.ids = new Map();
    tokenizer.unkId = unkId;
    tokenizer.cache = new Map();
    return tokenizer;
  };

  /* Lines "gap<TAB>piece": the piece's id is the one before plus gap plus one. */
  WordPieceTokenizer.prototype.addPieces = function (text) {
    var id = -1;
    var ids = this.ids;
    text.split("\n").forEach(function (line) {
      var tab = line.indexOf("\t");
      if (tab < 0) {
        return;
      }
      id += Number(line.slice(0, tab)) + 1;
      var piece = line.slice(tab + 1);
      if (!ids.has(piece)) {
        ids.set(piece, id);
      }
    });
    this.cache.clear();
  };

  WordPieceTokenizer.prototype.wordIds = function (word) {
    var cached = this.cache.get(word);
    if (cached) {
      return cached;
    }
    var chars = Array.from(word);
    var pieces = [];
    if (chars.length > MAX_WORD_CHARS) {
      pieces = [this.unkId];
    } else {
      var start = 0;
      while (start < chars.length) {
        var end = chars.length;
        var found = -1;
        while (start < end) {
          var piece = chars.slice(start, end).join("");
          if (start > 0) {
            piece = "##" + piece;
          }
          if (this.ids.has(piece)) {
            found = this.ids.get(piece);
            break;
          }
          end -= 1;
        }
        if (found < 0) {
          pieces = [this.unkId];
          break;
        }
        pieces.push(found);
        start = end;
      }
    }
    this.cache.set(word, pieces);
    return pieces;
  };

  /* Token ids of a text, without special tokens. */
  WordPieceTokenizer.prototype.encode = function (text) {
    var ids = [];
    var self = this;
    preTokenize(normalize(text)).forEach(function (word) {
      ids.push.apply(ids, self.wordIds(word));
    });
    return ids;
  };

  function readHeader(bytes, magic) {
    var view = new DataView(bytes);
    var start = String.fromCharCode.apply(null, new Uint8Array(bytes, 0, 8));
    if (start !== magic) {
      throw new Error("not a refdoc-site file (" + JSON.stringify(start) + ")");
    }
    return view;
  }

  /* The static model: sum of the word pieces' rows and the special rows, normalised. */
  function StaticEmbedder(header, scales, matrix, tokenizer) {
    this.header = header;
    this.dim = header.dim;
    this.maxTokens = header.max_tokens || 256;
    this.scales = scales;
    this.matrix = matrix;
    this.tokenizer = tokenizer;
    this.specialIds = (header.special_tokens || []).map(function (token) {
      return tokenizer.ids.get(token);
    });
  }

  StaticEmbedder.fromBytes = function (bytes, vocabText) {
    var view = readHeader(bytes, MODEL_MAGIC);
    var length = view.getUint32(8, true);
    var header = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 12, length)));
    var rows = header.vocab_size;
    var scales = new Float32Array(bytes.slice(header.scales_offset, header.scales_offset + 4 * rows));
    var matrix = new Int8Array(bytes, header.matrix_offset, rows * header.dim);
    return new StaticEmbedder(header, scales, matrix, WordPieceTokenizer.fromText(vocabText));
  };

  StaticEmbedder.prototype.tokenIds = function (text) {
    var pieces = this.tokenizer.encode(text).slice(0, this.maxTokens);
    return pieces.length ? pieces.concat(this.specialIds) : [];
  };

  StaticEmbedder.prototype.embed = function (text) {
    var dim = this.dim;
    var out = new Float64Array(dim);
    var matrix = this.matrix;
    var scales = this.scales;
    this.tokenIds(text).forEach(function (id) {
      var scale = scales[id];
      var offset = id * dim;
      for (var j = 0; j < dim; j++) {
        out[j] += matrix[offset + j] * scale;
      }
    });
    var norm = 0;
    for (var j = 0; j < dim; j++) {
      norm += out[j] * out[j];
    }
    norm = Math.sqrt(norm);
    if (norm > 0) {
      for (var k = 0; k < dim; k++) {
        out[k] /= norm;
      }
    }
    return out;
  };

  /* Chunk vectors: int8 rows with one float32 scale each; score = scale · (row · query). */
  function VectorTable(count, dim, scales, matrix) {
    this.count = count;
    this.dim = dim;
    this.scales = scales;
    this.matrix = matrix;
  }

  VectorTable.fromBytes = function (bytes) {
    var view = readHeader(bytes, VECTORS_MAGIC);
    var count = view.getUint32(8, true);
    var dim = view.getUint32(12, true);
    var scales = new Float32Array(bytes.slice(16, 16 + 4 * count));
    var matrix = new Int8Array(bytes, 16 + 4 * count, count * dim);
    return new VectorTable(count, dim, scales, matrix);
  };

  VectorTable.prototype.scores = function (query) {
    var dim = this.dim;
    var matrix = this.matrix;
    var out = new Float64Array(this.count);
    for (var row = 0; row < this.count; row++) {
      var offset = row * dim;
      var sum = 0;
      for (var j = 0; j < dim; j++) {
        sum += matrix[offset + j] * query[j];
      }
      out[row] = sum * this.scales[row];
    }
    return out;
  };

  return {
    normalize: normalize,
    preTokenize: preTokenize,
    WordPieceTokenizer: WordPieceTokenizer,
    StaticEmbedder: StaticEmbedder,
    VectorTable: VectorTable
  };
});
