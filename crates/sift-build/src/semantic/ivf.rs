//! Partitioning the chunk vectors into lists (an inverted file, IVF), so a query reads only
//! the lists nearest to it. Spherical k-means: cosine assignment, normalised centroids,
//! k-means++ seeding from a fixed-seed generator — deterministic for the same vectors.
//!
//! Its cost is vectors × lists × dimensions per round, and lists grow with the site (a list
//! per 64 chunks): from [`TWO_LEVELS_FROM`] lists on, k-means runs in two levels — √lists
//! clusters of all the vectors, then each cluster's share of the lists within it — which
//! costs vectors × 2√lists: 100,000 pages' 326,000 chunks in 5,093 lists took a quarter of an
//! hour flat (bench/results/2026-12-07-meaning-at-keyword-cost.md).

use super::linalg::{par_fill_rows, par_rows};
use sift_format::vindex::normalise;

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

/// The cosine of two unit vectors, in eight running sums: k-means is most of a layout's
/// time, and one running sum cannot be vectorised (f32 addition is not associative), so
/// the compiler keeps it scalar. The same sums in the same order on every machine: the
/// partition stays deterministic.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (xs, ys) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = xs.remainder().iter().zip(ys.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in xs.zip(ys) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// The best list for a vector: its most similar centroid (ties: the lower index).
pub fn nearest(centroids: &[f32], dim: usize, v: &[f32]) -> usize {
    // k-means is this search, vectors × lists a round. With AVX, `dot`'s eight sums are one
    // register instead of two: the same multiplications and additions in the same order (no
    // fused multiply-add), so the same partition, in about half the time.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX.
        return unsafe { nearest_avx(centroids, dim, v) };
    }
    nearest_portable(centroids, dim, v)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn nearest_avx(centroids: &[f32], dim: usize, v: &[f32]) -> usize {
    nearest_portable(centroids, dim, v)
}

#[inline(always)]
fn nearest_portable(centroids: &[f32], dim: usize, v: &[f32]) -> usize {
    let mut best = (f32::MIN, 0usize);
    for (c, row) in centroids.chunks_exact(dim).enumerate() {
        let s = dot(row, v);
        if s > best.0 {
            best = (s, c);
        }
    }
    best.1
}

/// From this many lists, k-means runs in two levels (module doc).
pub const TWO_LEVELS_FROM: usize = 1024;
/// Vectors the first level learns each of its clusters from (FAISS trains on as many).
const SAMPLE_PER_CLUSTER: usize = 256;

/// `lists` centroids (row-major, `lists × dim`) and each vector's list. `vectors`:
/// `n × dim`, unit length.
pub fn kmeans(vectors: &[f32], dim: usize, lists: usize) -> (Vec<f32>, Vec<u32>) {
    let n = vectors.len() / dim;
    let lists = lists.clamp(1, n.max(1));
    if lists < TWO_LEVELS_FROM {
        return flat(vectors, dim, lists);
    }
    // The clusters are learnt from an even sample of the vectors (at most
    // `SAMPLE_PER_CLUSTER` a cluster), then every vector goes to its nearest.
    let clusters = (lists as f64).sqrt().round() as usize;
    let step = (n / (SAMPLE_PER_CLUSTER * clusters)).max(1);
    let sample: Vec<f32> = vectors.chunks_exact(dim).step_by(step).flatten().copied().collect();
    let (top_centroids, _) = flat(&sample, dim, clusters);
    let top = par_rows(n, |i| nearest(&top_centroids, dim, &vectors[i * dim..(i + 1) * dim]) as u32);
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (i, &c) in top.iter().enumerate() {
        members.resize(members.len().max(c as usize + 1), Vec::new());
        members[c as usize].push(i);
    }
    let shares = apportion(&members.iter().map(Vec::len).collect::<Vec<usize>>(), lists);
    let mut centroids = Vec::with_capacity(lists * dim);
    let mut assign = vec![0u32; n];
    for (m, &k) in members.iter().zip(&shares) {
        if k == 0 {
            continue;
        }
        let sub: Vec<f32> = m.iter().flat_map(|&i| vectors[i * dim..(i + 1) * dim].iter().copied()).collect();
        let (c, a) = flat(&sub, dim, k);
        let first = (centroids.len() / dim) as u32;
        for (&i, &l) in m.iter().zip(&a) {
            assign[i] = first + l;
        }
        centroids.extend(c);
    }
    (centroids, assign)
}

/// `total` lists shared among clusters of `sizes` vectors in proportion (largest
/// remainders), each non-empty cluster at least one and at most a list per vector.
fn apportion(sizes: &[usize], total: usize) -> Vec<usize> {
    let n: usize = sizes.iter().sum();
    let exact: Vec<f64> = sizes.iter().map(|&s| total as f64 * s as f64 / n.max(1) as f64).collect();
    let mut k: Vec<usize> = sizes.iter().zip(&exact).map(|(&s, &e)| if s == 0 { 0 } else { (e.floor() as usize).clamp(1, s) }).collect();
    let owed = |k: &[usize], c: usize| exact[c] - k[c] as f64;
    let mut sum: usize = k.iter().sum();
    while sum < total {
        let Some(c) = (0..k.len()).filter(|&c| k[c] < sizes[c]).max_by(|&a, &b| owed(&k, a).total_cmp(&owed(&k, b)).then(b.cmp(&a))) else {
            break;
        };
        k[c] += 1;
        sum += 1;
    }
    while sum > total {
        let Some(c) = (0..k.len()).filter(|&c| k[c] > 1).min_by(|&a, &b| owed(&k, a).total_cmp(&owed(&k, b)).then(a.cmp(&b))) else {
            break;
        };
        k[c] -= 1;
        sum -= 1;
    }
    k
}

/// One level of k-means: `lists` (at most n) centroids and each vector's list.
fn flat(vectors: &[f32], dim: usize, lists: usize) -> (Vec<f32>, Vec<u32>) {
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
        // Seeding costs a round of Lloyd's: on every core too.
        par_fill_rows(&mut far, 1, |i, f| f[0] = f[0].min((1.0 - dot(row(i), &c)).max(0.0)));
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
        // An empty list takes the vector least like its current centroid (ranked only when
        // a list is empty: a sort of every vector, a round).
        let mut spare = counts.contains(&0).then(|| {
            let mut loneliest: Vec<(f32, usize)> =
                (0..n).map(|i| (dot(row(i), &centroids[assign[i] as usize * dim..][..dim]), i)).collect();
            loneliest.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            loneliest.into_iter().map(|(_, i)| i)
        });
        for c in 0..lists {
            let cent = &mut centroids[c * dim..(c + 1) * dim];
            if counts[c] == 0 {
                if let Some(i) = spare.as_mut().and_then(Iterator::next) {
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

    #[test]
    fn the_nearest_centroid_is_the_same_in_wide_registers() {
        let (dim, mut rng) = (128, Rng(11));
        let mut unit = |n: usize| -> Vec<f32> {
            (0..n)
                .flat_map(|_| {
                    let mut v: Vec<f32> = (0..dim).map(|_| rng.unit() as f32 - 0.5).collect();
                    normalise(&mut v);
                    v
                })
                .collect()
        };
        let (centroids, vectors) = (unit(300), unit(2000));
        for v in vectors.chunks_exact(dim) {
            assert_eq!(nearest(&centroids, dim, v), nearest_portable(&centroids, dim, v));
            let c = &centroids[..dim];
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx") {
                #[target_feature(enable = "avx")]
                unsafe fn dot_avx(a: &[f32], b: &[f32]) -> f32 {
                    dot(a, b)
                }
                // SAFETY: the CPU has AVX.
                assert_eq!(unsafe { dot_avx(c, v) }.to_bits(), dot(c, v).to_bits());
            }
        }
    }

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

    #[test]
    fn many_lists_are_made_in_two_levels_each_cluster_its_share() {
        let dim = 8;
        let mut rng = Rng(11);
        let x: Vec<f32> = (0..6000)
            .flat_map(|_| {
                let mut v: Vec<f32> = (0..dim).map(|_| rng.unit() as f32 - 0.5).collect();
                normalise(&mut v);
                v
            })
            .collect();
        let lists = TWO_LEVELS_FROM + 76;
        let (c, a) = kmeans(&x, dim, lists);
        assert_eq!(c.len(), lists * dim, "as many lists as asked");
        let mut used = vec![0usize; lists];
        for &l in &a {
            used[l as usize] += 1;
        }
        assert!(used.iter().all(|&u| u > 0), "no list is empty");
        assert_eq!(kmeans(&x, dim, lists), (c, a), "deterministic");
    }

    #[test]
    fn lists_are_shared_in_proportion_each_cluster_one_at_least() {
        assert_eq!(apportion(&[50, 30, 20], 10), vec![5, 3, 2]);
        assert_eq!(apportion(&[97, 2, 1], 10), vec![8, 1, 1], "the small clusters get one each");
        assert_eq!(apportion(&[5, 0, 5], 12), vec![5, 0, 5], "no more lists than vectors");
        assert_eq!(apportion(&[45, 35, 20], 7), vec![3, 3, 1], "the largest remainders get the rest");
    }
}
