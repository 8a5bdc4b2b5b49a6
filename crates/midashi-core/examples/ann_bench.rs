//! Exact int8 scan vs the HNSW graph (crate::ann) on clustered unit vectors shaped like
//! sentence embeddings (384 dims): query time, recall@10 of the graph against the exact
//! scan, build time and bytes. Its figures chose `ANN_MIN_ROWS`.
//!
//!   cargo run --release -p midashi-core --example ann_bench [-- 10000 25000 50000 100000]
//!
//! Prints figures; asserts nothing (speed is measured here, never in tests).

use midashi_core::format::{encode, FileKind};
use midashi_core::vectors::ann::AnnData;
use midashi_core::vectors::VectorsData;
use std::time::Instant;

const DIMS: usize = 384;
const QUERIES: usize = 200;

/// xorshift64*: a reproducible stream without a dependency.
struct Rng(u64);

impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }

    fn unit(&mut self, around: Option<&[f32]>, spread: f32) -> Vec<f32> {
        let mut v: Vec<f32> = (0..DIMS)
            .map(|i| around.map_or(0.0, |c| c[i]) + spread * self.next_f32())
            .collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= n);
        v
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 25_000, 50_000]
    } else {
        sizes
    };
    println!(
        "{:>8} {:>10} {:>10} {:>9} {:>9} {:>12} {:>12}",
        "rows", "scan ms", "hnsw ms", "recall10", "build s", "vectors MB", "graph MB"
    );
    for n in sizes {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ n as u64);
        // Documentation embeddings cluster by topic: 1 centre per 50 rows.
        let centres: Vec<Vec<f32>> = (0..(n / 50).max(1)).map(|_| rng.unit(None, 1.0)).collect();
        let mut vectors = VectorsData::new(DIMS as u32);
        for r in 0..n {
            let c = &centres[r % centres.len()];
            vectors.push(r as u32, &rng.unit(Some(c), 0.08));
        }
        let queries: Vec<Vec<f32>> = (0..QUERIES)
            .map(|i| rng.unit(Some(&centres[(i * 7919) % centres.len()]), 0.1))
            .collect();

        let t = Instant::now();
        let exact: Vec<Vec<(u32, f32)>> = queries.iter().map(|q| vectors.scan(q)).collect();
        let scan_ms = t.elapsed().as_secs_f64() * 1000.0 / QUERIES as f64;

        let t = Instant::now();
        let ann = AnnData::build(&vectors);
        let build_s = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let approx: Vec<Vec<(u32, f32)>> =
            queries.iter().map(|q| ann.search(&vectors, q)).collect();
        let hnsw_ms = t.elapsed().as_secs_f64() * 1000.0 / QUERIES as f64;

        let mut found = 0;
        for (e, a) in exact.iter().zip(&approx) {
            let top: Vec<u32> = e.iter().take(10).map(|h| h.0).collect();
            found += a.iter().take(10).filter(|h| top.contains(&h.0)).count();
        }
        let recall = found as f64 / (QUERIES * 10) as f64;
        let mb = |b: usize| b as f64 / 1e6;
        let vbytes = encode(FileKind::Vectors, &vectors).map_or(0, |b| b.len());
        let gbytes = encode(FileKind::Ann, &ann).map_or(0, |b| b.len());
        println!(
            "{n:>8} {scan_ms:>10.3} {hnsw_ms:>10.3} {recall:>9.3} {build_s:>9.1} {:>12.1} {:>12.1}",
            mb(vbytes),
            mb(gbytes)
        );
    }
}
