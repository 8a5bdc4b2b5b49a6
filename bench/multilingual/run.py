#!/usr/bin/env python3
"""Keyword retrieval in Chinese, Korean, Japanese and English: Midashi (`build-index eval`,
keyword mode, what the CLI, the JS API and the widget rank by) against bm25s with the same
tokenisation, on public QA sets (#25 item 3).

    python3 bench/multilingual/run.py [--build-index PATH] [--out bench/results/…md]

Sets (BEIR layout, written to target/eval/<set>/ from the raw files, as JSQuAD was made):
  cmrc2018-dev   Chinese: CMRC 2018 dev (squad-style), 848 paragraphs, 3,219 questions
  korquad-dev    Korean: KorQuAD 1.0 dev, 964 paragraphs of 140 articles, 5,774 questions
  jsquad-valid   Japanese: ../shared/eval/jsquad-valid
  scifact        English: ../shared/eval/scifact
Each question is judged relevant to the paragraph it was written from; a paragraph's title is
its article's.

bm25s's tokenisation is Midashi's, written again here because bm25s takes token lists: NFKC,
lower case, katakana folded to hiragana, runs of CJK characters (Han, kana, Hangul) as
overlapping character bigrams (a lone character as itself), other text as words (English
Snowball stemming, the English stop list dropped from queries). Both score title and text
(bm25s over "title\ntext", Midashi with its heading field weights). Installs bm25s into
target/bench-venv the first time (PyPI).
"""
import argparse, gzip, json, math, os, re, subprocess, sys, unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "bench/multilingual/data")
SHARED = os.environ.get("MIDASHI_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
VENV = os.path.join(ROOT, "target/bench-venv")
PINS = ["bm25s==0.2.14", "PyStemmer==2.2.0.3", "numpy", "scipy"]


def ensure_venv():
    """Re-runs this script inside target/bench-venv, made and filled once."""
    py = os.path.join(VENV, "bin/python")
    if sys.prefix == os.path.abspath(VENV):
        return
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    if subprocess.run([py, "-c", "import bm25s, Stemmer"], capture_output=True).returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "-q", *PINS], check=True)
    os.execv(py, [py, *sys.argv])


def squad_to_beir(raw, out, prefix):
    """A SQuAD-style file as a BEIR folder: a document per paragraph, a query per question."""
    if os.path.exists(os.path.join(out, "qrels/test.tsv")):
        return
    with gzip.open(raw, "rt", encoding="utf-8") as f:
        data = json.load(f)["data"]
    os.makedirs(os.path.join(out, "qrels"), exist_ok=True)
    with open(os.path.join(out, "corpus.jsonl"), "w", encoding="utf-8") as corpus, open(
        os.path.join(out, "queries.jsonl"), "w", encoding="utf-8"
    ) as queries, open(os.path.join(out, "qrels/test.tsv"), "w", encoding="utf-8") as qrels:
        qrels.write("query-id\tcorpus-id\tscore\n")
        for a, article in enumerate(data):
            title = article.get("title", "")
            for p, para in enumerate(article["paragraphs"]):
                doc = f"{prefix}{a}p{p}"
                corpus.write(json.dumps({"_id": doc, "title": title, "text": para["context"]}, ensure_ascii=False) + "\n")
                for qa in para["qas"]:
                    qid = str(qa["id"])
                    queries.write(json.dumps({"_id": qid, "text": qa["question"]}, ensure_ascii=False) + "\n")
                    qrels.write(f"{qid}\t{doc}\t1\n")


# --- Midashi's tokenisation, for bm25s ------------------------------------------------------

CJK = re.compile(
    "[\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u3005-\u3007"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
    "\u1100-\u11ff\u3131-\u318e\ua960-\ua97f\ud7b0-\ud7ff\uac00-\ud7a3"
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]+"
)
WORD = re.compile(r"\w+(?:['’]\w+)*")
_stemmer = None
_stop = None


def english():
    global _stemmer, _stop
    if _stemmer is None:
        import Stemmer

        _stemmer = Stemmer.Stemmer("english")
        # Midashi's list: crates/midashi-core/src/analyzer/stopwords.rs
        src = open(os.path.join(ROOT, "crates/midashi-core/src/analyzer/stopwords.rs"), encoding="utf-8").read()
        _stop = set(re.findall(r'^\s+"([^"]+)",$', src, re.M))
    return _stemmer, _stop


def fold(text):
    t = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    # Katakana to hiragana (ー kept), as normalize.rs does.
    return "".join(chr(ord(c) - 0x60) if "\u30a1" <= c <= "\u30f6" else c for c in t)


ELISIONS = {
    "french": ("l'", "d'", "j'", "m'", "n'", "s'", "t'", "c'", "qu'", "jusqu'", "lorsqu'", "puisqu'"),
    "german": (),
}
_lang_stemmers = {}


def doc_tokens(text, lang, query=False):
    """Midashi's rules for a page in `lang` (`french`, `german`): words of Latin letters by
    that language's Snowball stemmer (elisions off first), words with digits as they are;
    only English's stopwords leave a query."""
    import Stemmer

    stem = _lang_stemmers.setdefault(lang, Stemmer.Stemmer(lang))
    _, stop = english()
    out = []
    for w in WORD.findall(fold(text)):
        word = w
        if any(c.isdigit() for c in w) or len(w) <= 2:
            out.append((word, w))
            continue
        for e in ELISIONS.get(lang, ()):
            if w.startswith(e) and len(w) > len(e):
                w = w[len(e):]
                break
        out.append((word, stem.stemWord(w)))
    if query:
        kept = [s for w, s in out if w not in stop]
        return kept or [s for _, s in out]
    return [s for _, s in out]


def tokens(text, query=False):
    stem, stop = english()
    t = fold(text)
    out, last = [], 0
    words = []

    def latin(span):
        for w in WORD.findall(span):
            if w.isascii() and w.replace("'", "").isalpha() and len(w) > 2:
                words.append((w, stem.stemWord(w)))
            else:
                words.append((w, w))

    for m in CJK.finditer(t):
        latin(t[last : m.start()])
        for w, s in words:
            out.append((w, s, False))
        words.clear()
        run = m.group()
        out.extend((b, b, True) for b in ([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]))
        last = m.end()
    latin(t[last:])
    out.extend((w, s, False) for w, s in words)
    if query:
        kept = [s for w, s, cjk in out if cjk or w not in stop]
        return kept or [s for _, s, _ in out]
    return [s for _, s, _ in out]


# --- Evaluation ---------------------------------------------------------------------------

def load(folder):
    docs = [json.loads(l) for l in open(os.path.join(folder, "corpus.jsonl"), encoding="utf-8")]
    queries = [json.loads(l) for l in open(os.path.join(folder, "queries.jsonl"), encoding="utf-8")]
    qrels = {}
    for line in open(os.path.join(folder, "qrels/test.tsv"), encoding="utf-8").read().splitlines()[1:]:
        q, d, s = line.split("\t")
        qrels.setdefault(q, {})[d] = int(s)
    return docs, [q for q in queries if str(q["_id"]) in qrels], qrels


def ndcg_recall(run, qrels, k=10):
    """Mean nDCG@k and Recall@k (gain = grade, log2 discount, ideal from the qrels)."""
    nd, rc = 0.0, 0.0
    for q, rel in qrels.items():
        ranked = run.get(q, [])[:k]
        dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked))
        ideal = sorted(rel.values(), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        nd += dcg / idcg if idcg else 0.0
        rc += len([d for d in ranked if rel.get(d, 0) > 0]) / len([g for g in rel.values() if g > 0])
    return nd / len(qrels), rc / len(qrels)


def bm25s_run(docs, queries):
    import bm25s

    corpus = [tokens(f"{d.get('title', '')}\n{d['text']}") for d in docs]
    retriever = bm25s.BM25()
    retriever.index(to_ids(corpus))
    run = {}
    vocab = _vocab
    for q in queries:
        ids = [vocab[t] for t in tokens(q["text"], query=True) if t in vocab]
        if not ids:
            run[str(q["_id"])] = []
            continue
        scores = retriever.get_scores(ids)
        top = sorted(range(len(docs)), key=lambda i: -scores[i])[:10]
        run[str(q["_id"])] = [str(docs[i]["_id"]) for i in top if scores[i] > 0]
    return run


_vocab = {}


def to_ids(corpus):
    """Token lists as bm25s's Tokenized (ids + vocab), so bm25s scores exactly these tokens."""
    import bm25s

    ids = [[_vocab.setdefault(t, len(_vocab)) for t in doc] for doc in corpus]
    return bm25s.tokenization.Tokenized(ids=ids, vocab=_vocab)


def midashi_run(binary, folder):
    run_file = os.path.join(folder, "midashi.run")
    out = subprocess.run(
        [binary, "eval", folder, "--mode", "keyword", "--json", "--run", run_file],
        check=True, capture_output=True, text=True,
    )
    run = {}
    for line in open(run_file, encoding="utf-8"):
        q, _, d, rank, *_ = line.split()
        run.setdefault(q, []).append((int(rank), d))
    return {q: [d for _, d in sorted(v)] for q, v in run.items()}, json.loads(out.stdout)


# Docs sets: (name, language, question set, tarball in data/, anchor style, Snowball name).
DOCS = [
    ("vue-docs-fr", "fr", "bench/questions/vue-docs-fr", "vue-docs-fr.tar.gz", "vitepress", "french"),
    ("rust-book-de", "de", "bench/questions/rust-book-de", "rust-book-de.tar.gz", "github", "german"),
]


def bm25s_docs(binary, folder, slug, lang, snowball, questions):
    """bm25s over the same sections (bench/multilingual/sections.mjs), by the same rules."""
    import bm25s

    os.makedirs(os.path.join(ROOT, "target/eval"), exist_ok=True)
    records = os.path.join(ROOT, "target/eval", os.path.basename(folder) + ".sections.jsonl")
    subprocess.run(["node", os.path.join(ROOT, "bench/multilingual/sections.mjs"), folder, slug, lang, records],
                   check=True, env={**os.environ, "MIDASHI_BUILD_INDEX": binary})
    docs = [json.loads(l) for l in open(records, encoding="utf-8")]
    _vocab.clear()
    retriever = bm25s.BM25()
    retriever.index(to_ids([doc_tokens(f"{d['title']}\n{d['text']}", snowball) for d in docs]))
    _, queries, qrels = load_questions(os.path.join(ROOT, questions))
    run = {}
    for q in queries:
        ids = [_vocab[t] for t in doc_tokens(q["text"], snowball, query=True) if t in _vocab]
        if not ids:
            run[str(q["_id"])] = []
            continue
        scores = retriever.get_scores(ids)
        top = sorted(range(len(docs)), key=lambda i: -scores[i])[:10]
        run[str(q["_id"])] = [docs[i]["_id"] for i in top if scores[i] > 0]
    return ndcg_recall(run, qrels)[0]


def load_questions(folder):
    queries = [json.loads(l) for l in open(os.path.join(folder, "queries.jsonl"), encoding="utf-8")]
    qrels = {}
    for line in open(os.path.join(folder, "qrels/test.tsv"), encoding="utf-8").read().splitlines()[1:]:
        q, d, g = line.split("\t")
        qrels.setdefault(q, {})[d] = int(g)
    return None, [q for q in queries if q["_id"] in qrels], qrels


def docs_runs(binary, names):
    """Translated docs with question sets over the same sections: nDCG@10 with the page
    language's rules (told from the pages' stopwords, as a build without flags does) and with
    the English rules (`--lang en`: what these sites got before)."""
    import tarfile

    rows = []
    for name, lang, questions, tarball, slug, snowball in DOCS:
        if name not in names:
            continue
        folder = os.path.join(ROOT, "target/eval", name)
        if not os.path.isdir(folder):
            with tarfile.open(os.path.join(DATA, tarball)) as t:
                t.extractall(os.path.join(ROOT, "target/eval"), filter="data")
        for label, extra in [
            (f"{lang} rules (default)", []),
            ("English rules (`--lang en`)", ["--lang", "en"]),
            (f"{lang} rules, ungrouped (`--ungrouped`)", ["--ungrouped"]),
        ]:
            out = subprocess.run(
                [binary, "eval", os.path.join(ROOT, questions), "--docs", folder,
                 "--slug", slug, "--mode", "keyword", "--json", *extra],
                check=True, capture_output=True, text=True,
            )
            r = json.loads(out.stdout)
            kinds = r.get("ndcg@10_by_kind", {})
            row = {"ndcg": r["ndcg@10"], **{k: kinds.get(k, {}).get("ndcg@10", float("nan")) for k in ("navigational", "question")}}
            rows.append((name, label, row))
            print(f"{name:14} {lang}  {label:40} nDCG@10 {row['ndcg']:.3f}  navigational {row['navigational']:.3f}  question {row['question']:.3f}", flush=True)
        b = bm25s_docs(binary, folder, slug, lang, snowball, questions)
        rows.append((name, f"bm25s, {lang} rules, ungrouped", {"ndcg": b, "navigational": float("nan"), "question": float("nan")}))
        print(f"{name:14} {lang}  {'bm25s, same sections, ungrouped':40} nDCG@10 {b:.3f}", flush=True)
    return rows


def main():
    ensure_venv()
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-index", default=os.environ.get("MIDASHI_BUILD_INDEX", os.path.join(ROOT, "target/release/build-index")))
    ap.add_argument("--out")
    ap.add_argument("--sets", default="cmrc2018-dev,korquad-dev,jsquad-valid,scifact")
    ap.add_argument("--docs", default="vue-docs-fr,rust-book-de", help="docs sets (comma-separated; empty: none)")
    args = ap.parse_args()
    sets = {
        "cmrc2018-dev": ("zh", lambda: squad_to_beir(os.path.join(DATA, "cmrc2018_dev.json.gz"), os.path.join(ROOT, "target/eval/cmrc2018-dev"), "c")),
        "korquad-dev": ("ko", lambda: squad_to_beir(os.path.join(DATA, "KorQuAD_v1.0_dev.json.gz"), os.path.join(ROOT, "target/eval/korquad-dev"), "k")),
        "jsquad-valid": ("ja", None),
        "scifact": ("en", None),
    }
    rows = []
    for name in [n for n in args.sets.split(",") if n]:
        lang, make = sets[name]
        if make:
            make()
            folder = os.path.join(ROOT, "target/eval", name)
        else:
            folder = os.path.join(SHARED, "eval", name)
        docs, queries, qrels = load(folder)
        _vocab.clear()
        ours, _ = midashi_run(args.build_index, folder)
        theirs = bm25s_run(docs, queries)
        m = ndcg_recall(ours, qrels)
        b = ndcg_recall(theirs, qrels)
        rows.append((name, lang, len(docs), len(queries), m, b))
        print(f"{name:14} {lang}  docs {len(docs):5}  queries {len(queries):5}  "
              f"midashi nDCG@10 {m[0]:.3f} R@10 {m[1]:.3f}   bm25s nDCG@10 {b[0]:.3f} R@10 {b[1]:.3f}   "
              f"{'at or above' if m[0] >= b[0] else 'BELOW'} bm25s", flush=True)
    docs_rows = docs_runs(args.build_index, args.docs.split(","))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("# Keyword retrieval by language: Midashi against bm25s with the same tokenisation\n\n")
            f.write("`python3 bench/multilingual/run.py` (bm25s 0.2.14, k1 1.5, b 0.75, over title + text; "
                    "Midashi `build-index eval --mode keyword`).\n\n")
            f.write("| set | language | paragraphs | questions | Midashi nDCG@10 | bm25s nDCG@10 | Midashi R@10 | bm25s R@10 |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
            for name, lang, nd, nq, m, b in rows:
                f.write(f"| {name} | {lang} | {nd:,} | {nq:,} | **{m[0]:.3f}** | {b[0]:.3f} | {m[1]:.3f} | {b[1]:.3f} |\n")
            if docs_rows:
                f.write("\n## Translated documentation: the page language's rules against the English rules\n\n"
                        "`vue-docs-fr`: Vue's docs in French (vuejs-translations/docs-fr) with the vue-docs-ja set's "
                        "70 queries written in French; `rust-book-de`: the Rust book in German (rust-lang-de/rustbook-de) "
                        "with the rust-book set's 85 queries written in German, judging the same sections "
                        "(`build-index eval --docs`; see bench/multilingual/README.md).\n\n"
                        "| set | rules | nDCG@10 | navigational | question |\n|---|---|---:|---:|---:|\n")
                for name, label, r in docs_rows:
                    f.write(f"| {name} | {label} | {r['ndcg']:.3f} | {r['navigational']:.3f} | {r['question']:.3f} |\n")
    # Like for like: Midashi's sections ranked one by one against bm25s's.
    ungrouped = {n: r["ndcg"] for n, label, r in docs_rows if "--ungrouped" in label}
    baseline = {n: r["ndcg"] for n, label, r in docs_rows if label.startswith("bm25s")}
    if any(m[0] < b[0] for *_, m, b in rows) or any(ungrouped[n] < baseline[n] for n in baseline):
        sys.exit(1)


if __name__ == "__main__":
    main()
