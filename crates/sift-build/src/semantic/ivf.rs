//! Partitioning the chunk vectors into lists (an inverted file, IVF), so a query reads only
//! the lists nearest to it. Spherical k-means: cosine assignment, normalised centroids,
//! k-means++ seeding from a fixed-seed generator — deterministic for the same vectors.

use super::linalg::par_rows;
use sift_format::vindex::{dot, normalise};

/// Lloyd iterations after seeding.
const ITERATIONS: usize = 12;

/// xorshift64*: a small deterministic generator for seeding.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The best list for a vector: its most similar centroid (ties: the lower index).
pub fn nearest(centroids: &[f32], dim: usize, v: &[f32]) -> usize {
    let mut best = (f32::MIN, 0usize);
    for (c, row) in centroids.chunks_exact(dim).enumerate() {
        let s = dot(row, v);
        if s > best.0 {
            best = (s, c);
        }
    }
    best.1
}

/// `lists` centroids (row-major, `lists × dim`) and each vector's list. `vectors`:
/// `n × dim`, unit length.
pub fn kmeans(vectors: &[f32], dim: usize, lists: usize) -> (Vec<f32>, Vec<u32>) {
    let n = vectors.len() / dim;
    let lists = lists.clamp(1, n.max(1));
    let row = |i: usize| &vectors[i * dim..(i + 1) * dim];
    // k-means++: each next seed drawn with probability proportional to its distance
    // (1 − cosine) from the nearest seed so far.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ n as u64);
    let mut centroids: Vec<f32> = row((rng.next() % n as u64) as usize).to_vec();
    let mut far: Vec<f32> = (0..n).map(|i| (1.0 - dot(row(i), &centroids[..dim])).max(0.0)).collect();
    while centroids.len() / dim < lists {
        let total: f64 = far.iter().map(|&d| f64::from(d)).sum();
        let pick = if total <= 0.0 {
            (rng.next() % n as u64) as usize
        } else {
            let mut target = rng.unit() * total;
            far.iter()
                .position(|&d| {
                    target -= f64::from(d);
                    target <= 0.0
                })
                .unwrap_or(n - 1)
        };
        let c = row(pick).to_vec();
        for (i, f) in far.iter_mut().enumerate() {
            *f = f.min((1.0 - dot(row(i), &c)).max(0.0));
        }
        centroids.extend(c);
    }
    for _ in 0..ITERATIONS {
        let assign = par_rows(n, |i| nearest(&centroids, dim, row(i)) as u32);
        let mut sums = vec![0f64; lists * dim];
        let mut counts = vec![0usize; lists];
        for (i, &a) in assign.iter().enumerate() {
            counts[a as usize] += 1;
            for (s, x) in sums[a as usize * dim..(a as usize + 1) * dim].iter_mut().zip(row(i)) {
                *s += f64::from(*x);
            }
        }
        // An empty list takes the vector least like its current centroid.
        let mut loneliest: Vec<(f32, usize)> = (0..n).map(|i| (dot(row(i), &centroids[assign[i] as usize * dim..][..dim]), i)).collect();
        loneliest.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut spare = loneliest.into_iter().map(|(_, i)| i);
        for c in 0..lists {
            let cent = &mut centroids[c * dim..(c + 1) * dim];
            if counts[c] == 0 {
                if let Some(i) = spare.next() {
                    cent.copy_from_slice(row(i));
                }
                continue;
            }
            for (x, s) in cent.iter_mut().zip(&sums[c * dim..(c + 1) * dim]) {
                *x = *s as f32;
            }
            normalise(cent);
        }
    }
    let assign = par_rows(n, |i| nearest(&centroids, dim, row(i)) as u32);
    (centroids, assign)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clustered(n: usize, dim: usize) -> Vec<f32> {
        let mut rng = Rng(7);
        let centres: Vec<Vec<f32>> = (0..4).map(|_| (0..dim).map(|_| rng.unit() as f32 - 0.5).collect()).collect();
        let mut out = Vec::new();
        for i in 0..n {
            let mut v: Vec<f32> = centres[i % 4].iter().map(|x| x + 0.05 * (rng.unit() as f32 - 0.5)).collect();
            normalise(&mut v);
            out.extend(v);
        }
        out
    }

    #[test]
    fn kmeans_separates_clear_clusters_deterministically() {
        let dim = 16;
        let x = clustered(400, dim);
        let (c, a) = kmeans(&x, dim, 4);
        assert_eq!(c.len(), 4 * dim);
        for i in 0..400 {
            assert_eq!(a[i], a[i % 4], "point {i} is with its cluster");
        }
        let mut seen: Vec<u32> = a[..4].to_vec();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 4, "four clusters, four lists");
        assert_eq!(kmeans(&x, dim, 4), (c, a), "deterministic");
    }
}
