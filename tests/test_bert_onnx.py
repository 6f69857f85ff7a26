"""The ONNX graph `tools/embedder/bert_onnx.py` writes from safetensors: a small random BERT
run by onnxruntime gives the sentence vectors a plain numpy forward pass gives."""

from __future__ import annotations

import json
import math
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
onnxruntime = pytest.importorskip("onnxruntime")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "embedder"))

from bert_onnx import build_model, read_safetensors

CONFIG = {"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 2, "intermediate_size": 12, "layer_norm_eps": 1e-12}
VOCAB, POSITIONS = 20, 16


def random_weights(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    hidden, inner = CONFIG["hidden_size"], CONFIG["intermediate_size"]

    def dense(prefix: str, rows: int, columns: int) -> dict[str, np.ndarray]:
        return {prefix + ".weight": rng.normal(0, 0.5, (rows, columns)).astype(np.float32), prefix + ".bias": rng.normal(0, 0.1, rows).astype(np.float32)}

    def norm(prefix: str) -> dict[str, np.ndarray]:
        return {prefix + ".weight": (1 + rng.normal(0, 0.1, hidden)).astype(np.float32), prefix + ".bias": rng.normal(0, 0.1, hidden).astype(np.float32)}

    weights = {
        "embeddings.word_embeddings.weight": rng.normal(0, 1, (VOCAB, hidden)).astype(np.float32),
        "embeddings.position_embeddings.weight": rng.normal(0, 1, (POSITIONS, hidden)).astype(np.float32),
        "embeddings.token_type_embeddings.weight": rng.normal(0, 1, (2, hidden)).astype(np.float32),
        **norm("embeddings.LayerNorm"),
    }
    for number in range(CONFIG["num_hidden_layers"]):
        prefix = f"encoder.layer.{number}."
        for part in ("query", "key", "value"):
            weights |= dense(prefix + "attention.self." + part, hidden, hidden)
        weights |= dense(prefix + "attention.output.dense", hidden, hidden) | norm(prefix + "attention.output.LayerNorm")
        weights |= dense(prefix + "intermediate.dense", inner, hidden) | dense(prefix + "output.dense", hidden, inner)
        weights |= norm(prefix + "output.LayerNorm")
    return weights


def numpy_sentence_vector(weights: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """BERT's forward pass for one unpadded text, mean-pooled and normalised."""
    heads = CONFIG["num_attention_heads"]
    size = CONFIG["hidden_size"] // heads

    def norm(x: np.ndarray, prefix: str) -> np.ndarray:
        centred = x - x.mean(-1, keepdims=True)
        return centred / np.sqrt((centred**2).mean(-1, keepdims=True) + 1e-12) * weights[prefix + ".weight"] + weights[prefix + ".bias"]

    def linear(x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ weights[prefix + ".weight"].T + weights[prefix + ".bias"]

    x = weights["embeddings.word_embeddings.weight"][ids] + weights["embeddings.position_embeddings.weight"][: len(ids)]
    x = norm(x + weights["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
    erf = np.vectorize(math.erf)
    for number in range(CONFIG["num_hidden_layers"]):
        prefix = f"encoder.layer.{number}."
        q, k, v = (linear(x, prefix + "attention.self." + p).reshape(len(ids), heads, size).transpose(1, 0, 2) for p in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        context = (probs @ v).transpose(1, 0, 2).reshape(len(ids), -1)
        x = norm(linear(context, prefix + "attention.output.dense") + x, prefix + "attention.output.LayerNorm")
        inner = linear(x, prefix + "intermediate.dense")
        x = norm(linear(inner * 0.5 * (1 + erf(inner / math.sqrt(2))), prefix + "output.dense") + x, prefix + "output.LayerNorm")
    mean = x.mean(0)
    return mean / np.linalg.norm(mean)


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"".join(blobs))


def test_the_graph_gives_the_numpy_forward_pass_with_padding_masked_out(tmp_path: Path) -> None:
    weights = random_weights()
    write_safetensors(tmp_path / "model.safetensors", weights)
    read = read_safetensors(tmp_path / "model.safetensors")
    assert set(read) == set(weights) and all(np.array_equal(read[name], weights[name]) for name in weights)

    model = build_model(read, CONFIG)
    onnx.checker.check_model(model)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    texts = [[1, 5, 7, 2], [1, 9, 3, 11, 4, 6, 2]]
    width = max(map(len, texts))
    ids = np.zeros((2, width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, text in enumerate(texts):
        ids[row, : len(text)], mask[row, : len(text)] = text, 1
    vectors = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]

    assert vectors.shape == (2, CONFIG["hidden_size"])
    for row, text in enumerate(texts):
        np.testing.assert_allclose(vectors[row], numpy_sentence_vector(weights, text), atol=1e-4)
