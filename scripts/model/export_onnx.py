"""Writes a BERT sentence encoder (all-MiniLM-L6-v2) as ONNX from its model.safetensors.

    python export_onnx.py --src <sentence-transformers folder> --out <dir> [--reference <json>]

Why we write the graph ourselves: no model hub is reachable from our machines and the
registry packages that carry the weights ship no ONNX; torch (the usual exporter) is far too
heavy to install for this. numpy + the `onnx` package are enough.

Outputs in --out (each written to a temporary name and renamed, so a failed run never leaves a
half-written model behind):

- model-fp32.onnx: the graph with fp32 weights.
- model.onnx: weight-only int8. Every dense weight is a per-output-channel symmetric int8
  initializer followed by DequantizeLinear: tract folds that to f32 once at load, so it runs at
  full fp32 speed from a file a quarter of the size. The word embeddings (30522 x 384, half the
  model) are int8 rows with one scale per row, gathered BEFORE they are converted to float, so
  only the query's rows are dequantised per run instead of the whole table. Activations stay
  fp32: onnxruntime-style activation quantisation (MatMulInteger, QLinearMatMul) runs ~40x
  slower in tract and is less accurate.
- tokenizer.json: the model's tokenizer with padding off and truncation at max_tokens.
- midashi-model.json: what midashi-embed needs to use the model (dims, max_tokens, pooling,
  normalize) and the sha256 of model.onnx.

Graph contract: inputs input_ids, attention_mask, token_type_ids (int64 [batch, sequence]);
output last_hidden_state (float32 [batch, sequence, hidden]). Pooling and normalisation are
left to the caller (midashi-embed), so the same graph serves any pooling.

Self-check before anything is written: a float64 numpy forward pass of the original weights
must match the reference embeddings (when --reference is given), and both ONNX graphs, run by
onnx's reference evaluator, must match that forward pass: cosine >= 0.9999 (fp32) and >= 0.999
(int8), or the script exits non-zero and writes nothing.
"""

import argparse
import hashlib
import json
import math
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

# 17: LayerNormalization is a single op (tract and onnxruntime both fuse it); GELU is written
# with Erf rather than opset 20's Gelu so older runtimes (onnxruntime-web) load the file too.
OPSET = 17
MIN_COSINE_FP32 = 0.9999
MIN_COSINE_INT8 = 0.999
# Additive attention bias for padded positions: large enough that exp() underflows to 0,
# small enough that adding it to a score never overflows (finfo.min can, in fp32).
MASK_BIAS = -10000.0

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64}


def fail(msg: str) -> None:
    print(f"export_onnx.py: {msg}", file=sys.stderr)
    sys.exit(1)


def load_safetensors(path: str) -> dict:
    """Reads a .safetensors file: u64 header length, JSON header, raw little-endian tensors."""
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = SAFETENSORS_DTYPES.get(info["dtype"])
        if dtype is None:
            fail(f"{path}: tensor {name} has unsupported dtype {info['dtype']}")
        start, end = info["data_offsets"]
        arr = np.frombuffer(data[start:end], dtype=np.dtype(dtype).newbyteorder("<"))
        tensors[name] = arr.reshape(info["shape"]).astype(dtype)
    # Some exports prefix every name with the architecture ("bert."); ours use bare names.
    if all(k.startswith("bert.") for k in tensors if not k.startswith("cls.")):
        tensors = {k[len("bert.") :]: v for k, v in tensors.items()}
    return tensors


class Config:
    """The handful of config.json / sentence-transformers settings the graph depends on."""

    def __init__(self, src: str):
        with open(os.path.join(src, "config.json")) as f:
            c = json.load(f)
        if c.get("model_type", "bert") != "bert":
            fail(f"model_type {c.get('model_type')!r} is not supported (only BERT encoders)")
        if c.get("hidden_act", "gelu") != "gelu":
            fail(f"hidden_act {c.get('hidden_act')!r} is not supported (only exact gelu)")
        if c.get("position_embedding_type", "absolute") != "absolute":
            fail("only absolute position embeddings are supported")
        self.hidden = c["hidden_size"]
        self.heads = c["num_attention_heads"]
        self.layers = c["num_hidden_layers"]
        self.eps = c.get("layer_norm_eps", 1e-12)
        self.max_positions = c["max_position_embeddings"]
        self.head_dim = self.hidden // self.heads

        # sentence-transformers settings: token limit, pooling, normalisation.
        self.max_tokens = self.max_positions
        sbert = os.path.join(src, "sentence_bert_config.json")
        if os.path.exists(sbert):
            with open(sbert) as f:
                self.max_tokens = min(self.max_tokens, json.load(f).get("max_seq_length", self.max_tokens))
        self.pooling = "mean"
        pool_cfg = os.path.join(src, "1_Pooling", "config.json")
        if os.path.exists(pool_cfg):
            with open(pool_cfg) as f:
                p = json.load(f)
            if p.get("pooling_mode_cls_token"):
                self.pooling = "cls"
            elif p.get("pooling_mode_max_tokens"):
                self.pooling = "max"
        self.normalize = False
        modules = os.path.join(src, "modules.json")
        if os.path.exists(modules):
            with open(modules) as f:
                self.normalize = any(m.get("type", "").endswith(".Normalize") for m in json.load(f))


# ---------------------------------------------------------------------------------------------
# Reference forward pass (float64 numpy), the ground truth both graphs are checked against.

_erf = np.frompyfunc(math.erf, 1, 1)


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float64))


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def forward_numpy(w: dict, cfg: Config, ids, type_ids, mask) -> np.ndarray:
    """last_hidden_state [seq, hidden] for one sequence, in float64."""
    W = {k: v.astype(np.float64) for k, v in w.items() if v.dtype != np.int64}
    ids, type_ids = np.asarray(ids), np.asarray(type_ids)
    s, h, d = len(ids), cfg.heads, cfg.head_dim
    x = (
        W["embeddings.word_embeddings.weight"][ids]
        + W["embeddings.position_embeddings.weight"][:s]
        + W["embeddings.token_type_embeddings.weight"][type_ids]
    )
    x = layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], cfg.eps)
    bias = (1.0 - np.asarray(mask, dtype=np.float64)) * MASK_BIAS
    for i in range(cfg.layers):
        p = f"encoder.layer.{i}."

        def dense(v, name):
            return v @ W[p + name + ".weight"].T + W[p + name + ".bias"]

        q = dense(x, "attention.self.query").reshape(s, h, d).transpose(1, 0, 2)
        k = dense(x, "attention.self.key").reshape(s, h, d).transpose(1, 0, 2)
        v = dense(x, "attention.self.value").reshape(s, h, d).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(d) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        probs = scores / scores.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(1, 0, 2).reshape(s, h * d)
        x = layer_norm(
            dense(ctx, "attention.output.dense") + x,
            W[p + "attention.output.LayerNorm.weight"],
            W[p + "attention.output.LayerNorm.bias"],
            cfg.eps,
        )
        inter = gelu(dense(x, "intermediate.dense"))
        x = layer_norm(
            dense(inter, "output.dense") + x,
            W[p + "output.LayerNorm.weight"],
            W[p + "output.LayerNorm.bias"],
            cfg.eps,
        )
    return x


def pool(lhs: np.ndarray, mask, cfg: Config) -> np.ndarray:
    """Sentence vector from a last hidden state [seq, hidden], as midashi-embed computes it."""
    m = np.asarray(mask, dtype=np.float64)[:, None]
    lhs = lhs.astype(np.float64)
    if cfg.pooling == "cls":
        v = lhs[0]
    elif cfg.pooling == "max":
        v = np.where(m > 0, lhs, -np.inf).max(0)
    else:
        v = (lhs * m).sum(0) / max(m.sum(), 1e-9)
    if cfg.normalize:
        v = v / max(np.linalg.norm(v), 1e-12)
    return v


def cosine(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# ---------------------------------------------------------------------------------------------
# Graph construction.


def quantize_per_channel(w: np.ndarray, axis: int):
    """Symmetric int8 with one scale per slice along `axis` (zero point 0, range ±127)."""
    reduce_axes = tuple(i for i in range(w.ndim) if i != axis)
    scale = np.abs(w).max(axis=reduce_axes) / 127.0
    scale = np.where(scale == 0, 1.0, scale).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


class Graph:
    def __init__(self, cfg: Config, int8: bool):
        self.cfg = cfg
        self.int8 = int8
        self.nodes = []
        self.inits = []
        self.n = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs, name: str = None, **attrs) -> str:
        self.n += 1
        out = name or f"{op_type.lower()}_{self.n}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=f"n{self.n}_{op_type}", **attrs))
        return out

    def weight(self, name: str, w_in_out: np.ndarray) -> str:
        """A dense weight laid out [in, out] for MatMul; int8 per output channel if quantised."""
        if not self.int8:
            return self.const(name, w_in_out.astype(np.float32))
        q, scale = quantize_per_channel(w_in_out, axis=1)
        return self.op(
            "DequantizeLinear",
            [
                self.const(name + ".q", q),
                self.const(name + ".scale", scale),
                self.const(name + ".zero", np.zeros_like(scale, dtype=np.int8)),
            ],
            axis=1,
        )

    def dense(self, x: str, w: dict, prefix: str, scale: float = 1.0) -> str:
        # PyTorch stores Linear weights [out, in]; MatMul wants [in, out].
        wt = w[prefix + ".weight"].T * scale
        b = (w[prefix + ".bias"] * scale).astype(np.float32)
        y = self.op("MatMul", [x, self.weight(prefix + ".weight", wt)])
        return self.op("Add", [y, self.const(prefix + ".bias", b)])

    def layer_norm(self, x: str, w: dict, prefix: str) -> str:
        return self.op(
            "LayerNormalization",
            [x, self.const(prefix + ".weight", w[prefix + ".weight"]), self.const(prefix + ".bias", w[prefix + ".bias"])],
            axis=-1,
            epsilon=float(self.cfg.eps),
        )

    def i64(self, name: str, values) -> str:
        return self.const(name, np.array(values, dtype=np.int64))

    def f32(self, name: str, value: float) -> str:
        return self.const(name, np.array(value, dtype=np.float32))

    def build(self, w: dict) -> onnx.ModelProto:
        cfg = self.cfg
        H, heads, d = cfg.hidden, cfg.heads, cfg.head_dim

        # Word embeddings: the biggest tensor. In int8, gather int8 rows and their scales,
        # then dequantise only what was gathered.
        word = w["embeddings.word_embeddings.weight"]
        if self.int8:
            q, scale = quantize_per_channel(word, axis=0)
            rows = self.op("Gather", [self.const("embeddings.word_embeddings.q", q), "input_ids"], axis=0)
            rows = self.op("Cast", [rows], to=TensorProto.FLOAT)
            row_scale = self.op("Gather", [self.const("embeddings.word_embeddings.scale", scale), "input_ids"], axis=0)
            row_scale = self.op("Unsqueeze", [row_scale, self.i64("axes_last", [-1])])
            words = self.op("Mul", [rows, row_scale])
        else:
            words = self.op("Gather", [self.const("embeddings.word_embeddings.weight", word), "input_ids"], axis=0)

        # Position embeddings 0..seq: slice the table to the input's sequence length.
        seq_len = self.op("Shape", ["input_ids"], start=1, end=2)
        positions = self.op(
            "Slice",
            [
                self.const("embeddings.position_embeddings.weight", w["embeddings.position_embeddings.weight"]),
                self.i64("zero_1d", [0]),
                seq_len,
                self.i64("axis0_1d", [0]),
            ],
        )
        types = self.op(
            "Gather",
            [self.const("embeddings.token_type_embeddings.weight", w["embeddings.token_type_embeddings.weight"]), "token_type_ids"],
            axis=0,
        )
        x = self.op("Add", [self.op("Add", [words, positions]), types])
        x = self.layer_norm(x, w, "embeddings.LayerNorm")

        # Attention bias [batch, 1, 1, seq]: 0 for real tokens, MASK_BIAS for padding.
        m = self.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
        m = self.op("Unsqueeze", [m, self.i64("axes_1_2", [1, 2])])
        bias = self.op("Mul", [self.op("Sub", [self.f32("one", 1.0), m]), self.f32("mask_bias", MASK_BIAS)])

        split_heads = self.i64("shape_split_heads", [0, 0, heads, d])  # 0 = keep that input dim
        merge_heads = self.i64("shape_merge_heads", [0, 0, H])
        for i in range(cfg.layers):
            p = f"encoder.layer.{i}."
            # 1/sqrt(d) folded into the query projection: one op less per layer, same result.
            q = self.dense(x, w, p + "attention.self.query", scale=1.0 / math.sqrt(d))
            k = self.dense(x, w, p + "attention.self.key")
            v = self.dense(x, w, p + "attention.self.value")
            q = self.op("Transpose", [self.op("Reshape", [q, split_heads])], perm=[0, 2, 1, 3])
            k = self.op("Transpose", [self.op("Reshape", [k, split_heads])], perm=[0, 2, 3, 1])
            v = self.op("Transpose", [self.op("Reshape", [v, split_heads])], perm=[0, 2, 1, 3])
            scores = self.op("Add", [self.op("MatMul", [q, k]), bias])
            probs = self.op("Softmax", [scores], axis=-1)
            ctx = self.op("Transpose", [self.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
            ctx = self.op("Reshape", [ctx, merge_heads])
            attn = self.dense(ctx, w, p + "attention.output.dense")
            x = self.layer_norm(self.op("Add", [attn, x]), w, p + "attention.output.LayerNorm")

            inter = self.dense(x, w, p + "intermediate.dense")
            # Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2))).
            erf = self.op("Erf", [self.op("Mul", [inter, self.f32(f"{p}inv_sqrt2", 1.0 / math.sqrt(2.0))])])
            inter = self.op("Mul", [self.op("Mul", [inter, self.op("Add", [erf, self.f32(f"{p}gelu_one", 1.0)])]), self.f32(f"{p}gelu_half", 0.5)])
            out = self.dense(inter, w, p + "output.dense")
            last = i == cfg.layers - 1
            x = self.op("Add", [out, x])
            x = self.op(
                "LayerNormalization",
                [x, self.const(p + "output.LayerNorm.weight", w[p + "output.LayerNorm.weight"]), self.const(p + "output.LayerNorm.bias", w[p + "output.LayerNorm.bias"])],
                name="last_hidden_state" if last else None,
                axis=-1,
                epsilon=float(cfg.eps),
            )

        dims = ["batch", "sequence"]
        inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in ("input_ids", "attention_mask", "token_type_ids")]
        outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [H])]
        graph = helper.make_graph(self.nodes, "bert_encoder", inputs, outputs, self.inits)
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", OPSET)],
            producer_name="midashi/scripts/model/export_onnx.py",
        )
        # IR 8 (ONNX 1.13+): readable by every runtime we target; the helper's default (10)
        # is newer than some onnxruntime-web builds accept.
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


# ---------------------------------------------------------------------------------------------


def check_cases(reference_path):
    """(ids, type_ids, mask, expected embedding or None) to check the graphs with."""
    if reference_path:
        with open(reference_path) as f:
            ref = json.load(f)
        return [(r["ids"], r["type_ids"], r["mask"], r["ref_embedding"], r.get("ref_lhs_first8")) for r in ref]
    # No reference file: a short and a long id sequence; the numpy pass is the ground truth.
    rng = np.random.default_rng(7)
    long_ids = [101] + rng.integers(1000, 30000, size=126).tolist() + [102]
    return [([101, 7592, 2088, 102], [0] * 4, [1] * 4, None, None), (long_ids, [0] * 128, [1] * 128, None, None)]


def for_reference_evaluator(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy declaring opset 19: onnx 1.17's evaluator only implements DequantizeLinear from
    19 on. Every op this exporter emits means the same at 17 and 19 (19 only adds float8 and
    int4 types), so the check still covers the bytes we ship."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    del copy.opset_import[:]
    copy.opset_import.append(helper.make_opsetid("", 19))
    copy.ir_version = 9
    return copy


def write_atomic(path: str, data: bytes) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True, help="sentence-transformers model folder (model.safetensors, config.json, tokenizer.json)")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--reference", help="minilm-reference.json (ids + float64 reference embeddings)")
    ap.add_argument("--name", default="all-MiniLM-L6-v2")
    # The languages the model was trained on (ISO 639-1). all-MiniLM-L6-v2 is English-only:
    # its vectors for Japanese text are close to noise, so search leaves them out (auto mode).
    ap.add_argument("--languages", default="en", help="comma-separated languages the model covers; empty: unknown")
    args = ap.parse_args()

    cfg = Config(args.src)
    w = load_safetensors(os.path.join(args.src, "model.safetensors"))
    cases = check_cases(args.reference)

    print(f"building graphs: {cfg.layers} layers, hidden {cfg.hidden}, {cfg.heads} heads, max_tokens {cfg.max_tokens}, pooling {cfg.pooling}, normalize {cfg.normalize}")
    fp32 = Graph(cfg, int8=False).build(w)
    int8 = Graph(cfg, int8=True).build(w)
    fp32_bytes = fp32.SerializeToString()
    int8_bytes = int8.SerializeToString()

    # The reference evaluator runs the serialized graphs exactly as written (no fusions), so a
    # wrong transpose or a wrong quantisation axis shows up here, not in the Rust tests.
    run_fp32 = ReferenceEvaluator(fp32)
    run_int8 = ReferenceEvaluator(for_reference_evaluator(int8))
    worst = {"numpy": 1.0, "fp32": 1.0, "int8": 1.0, "int8_vs_fp32": 1.0}
    for n, (ids, type_ids, mask, expected, lhs8) in enumerate(cases):
        truth_lhs = forward_numpy(w, cfg, ids, type_ids, mask)
        truth = pool(truth_lhs, mask, cfg)
        if expected is not None:
            worst["numpy"] = min(worst["numpy"], cosine(truth, expected))
            if lhs8 is not None and not np.allclose(truth_lhs[0, :8], lhs8, atol=1e-4):
                fail(f"case {n}: numpy last_hidden_state[0,:8] {truth_lhs[0, :8]} != reference {lhs8}")
        feeds = {
            "input_ids": np.array([ids], dtype=np.int64),
            "attention_mask": np.array([mask], dtype=np.int64),
            "token_type_ids": np.array([type_ids], dtype=np.int64),
        }
        v32 = pool(run_fp32.run(None, feeds)[0][0], mask, cfg)
        v8 = pool(run_int8.run(None, feeds)[0][0], mask, cfg)
        c32, c8 = cosine(v32, truth), cosine(v8, truth)
        worst["fp32"] = min(worst["fp32"], c32)
        worst["int8"] = min(worst["int8"], c8)
        worst["int8_vs_fp32"] = min(worst["int8_vs_fp32"], cosine(v8, v32))
        print(f"  case {n}: {len(ids):3d} tokens  cosine fp32 {c32:.7f}  int8 {c8:.7f}")
    print("  worst cosines: " + ", ".join(f"{k} {v:.7f}" for k, v in worst.items()))
    if args.reference and worst["numpy"] < MIN_COSINE_FP32:
        fail(f"the numpy forward pass disagrees with {args.reference} (cosine {worst['numpy']:.6f}): wrong weights or config")
    if worst["fp32"] < MIN_COSINE_FP32:
        fail(f"fp32 graph cosine {worst['fp32']:.6f} < {MIN_COSINE_FP32}: the exporter is broken, nothing written")
    if worst["int8"] < MIN_COSINE_INT8:
        fail(f"int8 graph cosine {worst['int8']:.6f} < {MIN_COSINE_INT8}: quantisation too lossy, nothing written")

    # Tokenizer: the shipped file pads to and truncates at 128. We encode one text at a time
    # (no padding) and truncate at the model's own limit.
    with open(os.path.join(args.src, "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    tok["padding"] = None
    trunc = tok.get("truncation") or {"strategy": "LongestFirst", "stride": 0}
    trunc["max_length"] = cfg.max_tokens
    tok["truncation"] = trunc

    os.makedirs(args.out, exist_ok=True)
    write_atomic(os.path.join(args.out, "model-fp32.onnx"), fp32_bytes)
    write_atomic(os.path.join(args.out, "model.onnx"), int8_bytes)
    write_atomic(os.path.join(args.out, "tokenizer.json"), json.dumps(tok, ensure_ascii=False, indent=2).encode("utf-8"))
    meta = {
        "name": args.name,
        "dims": cfg.hidden,
        "max_tokens": cfg.max_tokens,
        "pooling": cfg.pooling,
        "normalize": cfg.normalize,
        "languages": [l for l in args.languages.split(",") if l],
        "onnx": "model.onnx",
        "tokenizer": "tokenizer.json",
        "sha256": hashlib.sha256(int8_bytes).hexdigest(),
        "quantization": "weight-only int8, per output channel (word embeddings per row)",
        "check": {k: round(v, 7) for k, v in worst.items()},
    }
    write_atomic(os.path.join(args.out, "midashi-model.json"), (json.dumps(meta, indent=2) + "\n").encode("utf-8"))
    print(f"wrote {args.out}: model.onnx {len(int8_bytes) / 1e6:.1f} MB, model-fp32.onnx {len(fp32_bytes) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
