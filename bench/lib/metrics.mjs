// The one place where retrieval quality and latency figures are computed, for every system:
// nDCG@k (gain = judgment score, log2 discount, ideal ranking from the qrels — the formula
// build-index eval uses), Recall@k and MRR@k, and latency percentiles.

/**
 * Scores one ranked list against its judgments.
 * @param {string[]} ranked  document ids, best first
 * @param {Map<string, number>} judged  document id → grade
 * @param {number} k
 * @returns {{ndcg: number, recall: number, mrr: number}}
 */
export function scoreQuery(ranked, judged, k = 10) {
  const top = ranked.slice(0, k);
  let dcg = 0;
  top.forEach((d, i) => {
    dcg += (judged.get(d) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...judged.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  ideal.slice(0, k).forEach((g, i) => {
    idcg += g / Math.log2(i + 2);
  });
  const relevant = ideal.length;
  const found = top.filter((d) => (judged.get(d) ?? 0) > 0).length;
  const first = top.findIndex((d) => (judged.get(d) ?? 0) > 0);
  return {
    ndcg: idcg > 0 ? dcg / idcg : 0,
    recall: relevant > 0 ? found / relevant : 0,
    mrr: first >= 0 ? 1 / (first + 1) : 0,
  };
}

/** Mean nDCG/Recall/MRR over queries: `runs` is `[{ qid, ranked }]`. */
export function meanScores(runs, qrels, k = 10) {
  const sum = { ndcg: 0, recall: 0, mrr: 0 };
  for (const { qid, ranked } of runs) {
    const s = scoreQuery(ranked, qrels.get(qid), k);
    sum.ndcg += s.ndcg;
    sum.recall += s.recall;
    sum.mrr += s.mrr;
  }
  const n = Math.max(1, runs.length);
  return { queries: runs.length, ndcg10: sum.ndcg / n, recall10: sum.recall / n, mrr10: sum.mrr / n };
}

/** Nearest-rank percentile of a list of numbers (p in 0..1), as build-index eval computes it. */
export function percentile(values, p) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.round((sorted.length - 1) * p)];
}

/** p50/p95/p99 and mean of latencies in ms. */
export function latencySummary(ms) {
  const mean = ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length);
  return { p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), p99: percentile(ms, 0.99), mean };
}

/** The median of a few numbers. */
export function median(values) {
  return percentile(values, 0.5);
}

/**
 * Runs `queries` through `ask(query) → ranked ids` one at a time after `warmup` of them:
 * the rankings (`{ qid, ranked }`) and each query's milliseconds.
 */
export async function timedRuns(queries, ask, warmup = 10, prepare = undefined) {
  for (const q of queries.slice(0, warmup)) await ask(q);
  const runs = [];
  const ms = [];
  // With `prepare` (an engine that reads its index's files as queries need them): each
  // query's first run, which reads them, is timed apart; `ms` then times it with its files
  // in memory, as every in-memory peer's index is.
  const firstMs = [];
  for (const q of queries) {
    if (prepare) {
      const t0 = performance.now();
      await prepare(q);
      firstMs.push(performance.now() - t0);
    }
    const t = performance.now();
    const ranked = await ask(q);
    ms.push(performance.now() - t);
    runs.push({ qid: q.id, ranked });
  }
  return { runs, ms, firstMs };
}
