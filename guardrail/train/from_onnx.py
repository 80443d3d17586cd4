"""Torch weights recovered from a shipped int8 ONNX grounding model, so a further training pass can start from it.

Why: training checkpoints live outside the repository and die with the session that wrote them; the only
copy of a shipped model that survives is its ``model.onnx`` (int8 dynamic quantisation). Dequantising it
gives fp32 weights within one quantisation step of the trained ones (per-tensor int8: about 0.4% of each
tensor's largest weight), which a few hundred steps of further training absorb. The mapping needs no
bookkeeping from the export: biases, LayerNorms and embeddings keep their torch names in the graph; a
linear layer's int8 weight hangs off a ``MatMulInteger`` node named after its module
(``/bert/encoder/layer.0/attention/self/query/MatMul_quant``), stored transposed ([in, out]).

    python -m guardrail.train.from_onnx guardrail/models/grounding-minilm /work/runs/v23.pt
    python -m guardrail.train.nli train --work /work/runs/nli-v5 --init-from /work/runs/v23.pt ...
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError


def _module_of(node_name: str) -> str:
    """'/bert/encoder/layer.0/attention/self/query/MatMul_quant' -> 'bert.encoder.layer.0.attention.self.query'."""
    parts = [p for p in node_name.split("/") if p]
    return ".".join(parts[:-1])


def onnx_state_dict(model_dir: str | Path) -> dict[str, np.ndarray]:
    """Every weight of the exported model as an fp32 array under its torch parameter name."""
    import onnx
    from onnx import numpy_helper

    path = Path(model_dir)
    path = path / "model.onnx" if path.is_dir() else path
    if not path.exists():
        raise ConfigError(f"{path}: no ONNX model to recover weights from")
    graph = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}

    def deq(base: str) -> np.ndarray:
        q = init[base + "_quantized"].astype(np.float32)
        return (q - init[base + "_zero_point"].astype(np.float32)) * init[base + "_scale"].astype(np.float32)

    out: dict[str, np.ndarray] = {}
    for name, arr in init.items():
        if name.startswith("onnx::") or name.endswith(("_scale", "_zero_point", "_quantized")):
            continue
        if arr.dtype == np.float32 and "." in name and not name.startswith("/"):
            out[name] = arr.copy()
    for name in init:
        if not name.endswith("_quantized") or name.startswith("onnx::"):
            continue
        base = name[: -len("_quantized")]
        if base.endswith("_Transposed"):
            out[base[: -len("_Transposed")]] = deq(base).T.copy()
        else:
            out[base] = deq(base).copy()
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        weight = node.input[1]
        if weight.startswith("onnx::") and weight.endswith("_quantized"):
            out[_module_of(node.name) + ".weight"] = deq(weight[: -len("_quantized")]).T.copy()
    return out


def load_into(model: Any, model_dir: str | Path) -> list[str]:
    """Load the recovered weights into a torch ``BertForSequenceClassification``; returns the names left as they were.

    Every recovered name must exist in the model with the same shape (a mismatch means another architecture:
    an error, not a silent partial load); buffers such as ``position_ids`` are not in the graph and stay.
    """
    import torch

    weights = onnx_state_dict(model_dir)
    own = model.state_dict()
    for name, arr in weights.items():
        if name not in own:
            raise ConfigError(f"{model_dir}: weight {name!r} has no place in the torch model")
        if tuple(own[name].shape) != arr.shape:
            raise ConfigError(f"{model_dir}: weight {name!r} is {arr.shape}, the model wants {tuple(own[name].shape)}")
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()}, strict=False)
    return sorted(set(own) - set(weights))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m guardrail.train.from_onnx", description=__doc__.splitlines()[0])
    ap.add_argument("model_dir", help="an exported grounding model folder (model.onnx + config.json)")
    ap.add_argument("out", help="where to write a checkpoint that `train --init-from` reads")
    ap.add_argument("--base", default=None,
                    help="base encoder folder for the architecture (config.json, tokenizer.json; default the packaged "
                    "all-MiniLM-L6-v2)")
    args = ap.parse_args(argv)
    import torch

    from .nli import base_model_dir, classifier

    base = base_model_dir(args.base)
    has_weights = any((base / f).exists() for f in ("model.safetensors", "pytorch_model.bin"))
    # The graph holds every trained weight; only buffers (position ids) come from the base model or its config.
    model = classifier(base, init_only=not has_weights)
    left = load_into(model, args.model_dir)
    torch.save({"model": model.state_dict(), "from_onnx": str(args.model_dir)}, args.out)
    print(f"wrote {args.out}; not in the graph (kept from the base model): {left}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
