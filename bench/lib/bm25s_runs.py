"""bm25s's rankings of a BEIR folder's queries, for the `bm25s` row of `npm run bench`.

    python3 bench/lib/bm25s_runs.py <BEIR folder> <lang> <file with a JSON list of query ids>

Prints {query id: [document ids, best first]} (top 10) as JSON. bm25s 0.2 as plain BM25
(k1 1.5, b 0.75, over "title\\ntext"): English by bm25s's own tokeniser with English Snowball
stems and stopwords (bench/aws-docs/compare.py's `bm25s_plain`), other languages by Midashi's
tokenisation (NFKC, CJK character bigrams: bench/multilingual/run.py's `bm25s_run`), the
baselines issue #68 names. Runs inside target/bench-venv, made and filled once (PyPI).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench/multilingual"))
sys.path.insert(0, os.path.join(ROOT, "bench/aws-docs"))
from run import bm25s_run, ensure_venv, load  # noqa: E402
from compare import bm25s_plain  # noqa: E402


def main():
    folder, lang, ids_file = sys.argv[1:4]
    ensure_venv()
    docs, queries, _ = load(folder)
    wanted = {str(i) for i in json.load(open(ids_file, encoding="utf-8"))}
    queries = [q for q in queries if str(q["_id"]) in wanted]
    run = bm25s_plain(docs, queries) if lang == "en" else bm25s_run(docs, queries)
    json.dump(run, sys.stdout)


if __name__ == "__main__":
    main()
