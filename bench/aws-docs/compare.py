"""Midashi's keyword search against plain BM25 on the AWS documentation sets.

    python3 bench/aws-docs/compare.py [--sets target/eval/aws-docs] [--build-index BIN] [--no-record]

Reads the folders bench/aws-docs/make.mjs writes and prints nDCG@10 and Recall@10 for:
  - beir-sections, beir-pages, beir-2k: Midashi (`build-index eval <set> --mode keyword`, records
    weights) and bm25s 0.2 as its documentation describes plain BM25: k1 1.5, b 0.75, over
    "title\\ntext", English Snowball stems and English stopwords (bm25s's own tokeniser);
  - questions: Midashi as a site's visitors get it (`build-index eval questions --docs pages`,
    heading weights, results grouped), beside the same bm25s over the sections (beir-sections).
Records bench/results/<date>-aws-docs.json (BENCHMARKS.md's "Against plain BM25" table, written
by bench/benchmarks.mjs) unless --no-record. It measures; it asserts nothing. bm25s and
PyStemmer go into target/bench-venv (PyPI) once.
"""
import argparse, datetime, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench/multilingual"))
from run import ensure_venv, load, ndcg_recall  # noqa: E402  (one venv, one nDCG for bench/)


def bm25s_plain(docs, queries):
    """bm25s with its own English tokeniser: stems, stopwords, k1 1.5, b 0.75."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    corpus = bm25s.tokenize([f"{d.get('title', '')}\n{d['text']}" for d in docs], stopwords="en", stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(k1=1.5, b=0.75)
    retriever.index(corpus, show_progress=False)
    q_tokens = bm25s.tokenize([q["text"] for q in queries], stopwords="en", stemmer=stemmer, show_progress=False)
    ids, scores = retriever.retrieve(q_tokens, k=10, show_progress=False)
    return {
        str(q["_id"]): [str(docs[i]["_id"]) for i, s in zip(ids[n], scores[n]) if s > 0]
        for n, q in enumerate(queries)
    }


def midashi(binary, *args):
    out = subprocess.run([binary, "eval", *args, "--mode", "keyword", "--json"], check=True, capture_output=True, text=True)
    r = json.loads(out.stdout)
    return r["ndcg@10"], r["recall@10"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=os.path.join(ROOT, "target/eval/aws-docs"))
    ap.add_argument("--build-index", default=os.environ.get("MIDASHI_BUILD_INDEX", os.path.join(ROOT, "target/release/build-index")))
    ap.add_argument("--no-record", action="store_true")
    args = ap.parse_args()
    ensure_venv()
    rows = []
    for name in ["beir-sections", "beir-pages", "beir-2k"]:
        folder = os.path.join(args.sets, name)
        docs, queries, qrels = load(folder)
        b = ndcg_recall(bm25s_plain(docs, queries), qrels)
        m = midashi(args.build_index, folder)
        rows.append((name, len(docs), len(queries), m, b))
        print(f"{name:14} records {len(docs):6}  queries {len(queries):3}  midashi nDCG@10 {m[0]:.3f} R@10 {m[1]:.3f}"
              f"   bm25s nDCG@10 {b[0]:.3f} R@10 {b[1]:.3f}   {m[0] - b[0]:+.3f}", flush=True)
    site = midashi(args.build_index, os.path.join(args.sets, "questions"), "--docs", os.path.join(args.sets, "pages"))
    sections_bm25 = rows[0][4]
    print(f"{'questions':14} as a site (grouped)      midashi nDCG@10 {site[0]:.3f} R@10 {site[1]:.3f}"
          f"   bm25s (sections) nDCG@10 {sections_bm25[0]:.3f}   {site[0] - sections_bm25[0]:+.3f}", flush=True)
    if args.no_record:
        return
    record = {
        "date": datetime.date.today().isoformat(),
        "command": "python3 bench/aws-docs/compare.py",
        "baseline": "bm25s 0.2.14 (k1 1.5, b 0.75, English stems and stopwords, title + text)",
        "rows": [
            {"set": name, "records": nd, "queries": nq, "midashi": {"ndcg10": m[0], "recall10": m[1]},
             "bm25s": {"ndcg10": b[0], "recall10": b[1]}}
            for name, nd, nq, m, b in rows
        ] + [
            {"set": "questions (as a site, grouped)", "records": rows[0][1], "queries": rows[0][2],
             "midashi": {"ndcg10": site[0], "recall10": site[1]},
             "bm25s": {"ndcg10": sections_bm25[0], "recall10": sections_bm25[1]}}
        ],
    }
    out = os.path.join(ROOT, "bench/results", f"{record['date']}-aws-docs.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print(f"recorded {os.path.relpath(out, ROOT)}; node bench/benchmarks.mjs writes it into BENCHMARKS.md")

if __name__ == "__main__":
    main()
