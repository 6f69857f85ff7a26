"""The alternative candidate: all-MiniLM-L6-v2 exported to ONNX and int8-quantised.

    /work/train-venv/bin/python tools/embedder/export_onnx.py --out /work/train-cache/onnx

Writes `model.onnx` (fp32) and `model-int8.onnx` (dynamic int8 quantisation of the
MatMul/Gemm weights, onnxruntime.quantization) and prints their sizes raw and gzipped and
the time to embed one short query with onnxruntime on one thread. `OnnxEmbedder` is what
`evaluate.py` uses for `onnx:FILE` specs (the teacher's tokenizer, mean pooling over the
attention mask, L2 normalisation: the sentence-transformers recipe).
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from teacher import teacher_path


class OnnxEmbedder:
    def __init__(self, path: str | Path, threads: int = 1, max_length: int = 256) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(teacher_path() / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.no_padding()
        self.name = f"onnx {Path(path).name}"

    def embed(self, texts: Sequence[str], batch: int = 16) -> np.ndarray:
        out = []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch):
            rows = order[start : start + batch]
            encoded = self.tokenizer.encode_batch([texts[i] for i in rows])
            width = max(len(e.ids) for e in encoded)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for r, e in enumerate(encoded):
                ids[r, : len(e.ids)] = e.ids
                mask[r, : len(e.ids)] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feeds)[0]
            pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
            out.append((rows, pooled))
        result = np.zeros((len(texts), out[0][1].shape[1] if out else 384), dtype=np.float32)
        for rows, pooled in out:
            result[rows] = pooled
        return result / np.linalg.norm(result, axis=1, keepdims=True).clip(1e-12)


def export(folder: Path) -> tuple[Path, Path]:
    import torch
    from transformers import AutoModel

    torch.set_num_threads(1)
    folder.mkdir(parents=True, exist_ok=True)
    bert = AutoModel.from_pretrained(str(teacher_path()))
    bert.eval()

    class Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    model = Wrapper()
    fp32 = folder / "model.onnx"
    ids = torch.ones((1, 8), dtype=torch.long)
    torch.onnx.export(
        model,
        (ids, torch.ones_like(ids), torch.zeros_like(ids)),
        str(fp32),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["last_hidden_state"],
        dynamic_axes={n: {0: "batch", 1: "sequence"} for n in ("input_ids", "attention_mask", "token_type_ids")}
        | {"last_hidden_state": {0: "batch", 1: "sequence"}},
        opset_version=17,
        dynamo=False,
    )
    from onnxruntime.quantization import QuantType, quantize_dynamic

    int8 = folder / "model-int8.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    return fp32, int8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("/work/train-cache/onnx"))
    args = parser.parse_args()
    paths = export(args.out)
    for path in paths:
        data = path.read_bytes()
        embedder = OnnxEmbedder(path)
        query = ["suggest similarly spelled flags when the user mistypes a long flag"]
        embedder.embed(query)
        started = time.perf_counter()
        for _ in range(20):
            embedder.embed(query)
        ms = (time.perf_counter() - started) / 20 * 1000
        print(
            f"{path.name}: {len(data) / 1e6:.1f} MB raw, {len(gzip.compress(data, 6)) / 1e6:.1f} MB gzipped, "
            f"{ms:.1f} ms per short query (1 thread)"
        )


if __name__ == "__main__":
    main()
