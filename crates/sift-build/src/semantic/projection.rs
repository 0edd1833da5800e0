//! The bundle's semantic space: the model's vectors (384 dimensions for all-MiniLM-L6-v2)
//! projected onto the `dim` principal directions of the corpus's own chunk vectors. Cosines
//! in this space stay close to the model's, and every vector the bundle ships — chunks and
//! the static encoder's rows — is three times smaller.

use super::linalg::{par_map, symmetric_eigen};
pub use sift_format::vindex::{normalise, Projection};

/// Chunks per block of the Gram-matrix sum (blocks are summed in order: deterministic).
const BLOCK: usize = 1024;

/// The principal directions of `vectors` (uncentred: cosine geometry), `dim` of them (at
/// most the model's dimension). Each direction's sign is fixed so that its
/// largest-magnitude component is positive.
pub fn fit(vectors: &[&[f32]], model_dim: usize, dim: usize) -> Projection {
    let dim = dim.min(model_dim);
    let blocks: Vec<&[&[f32]]> = vectors.chunks(BLOCK).collect();
    let partial = par_map(&blocks, |block| {
        // f32 sums over runs of `FLUSH` vectors (vectorised), added into f64.
        const FLUSH: usize = 64;
        let mut g = vec![0f64; model_dim * model_dim];
        let mut acc = vec![0f32; model_dim * model_dim];
        for run in block.chunks(FLUSH) {
            acc.fill(0.0);
            for v in run.iter() {
                for i in 0..model_dim {
                    let vi = v[i];
                    for (a, x) in acc[i * model_dim + i..(i + 1) * model_dim].iter_mut().zip(&v[i..]) {
                        *a += vi * x;
                    }
                }
            }
            for (gij, a) in g.iter_mut().zip(&acc) {
                *gij += f64::from(*a);
            }
        }
        g
    });
    let mut g = vec![0f64; model_dim * model_dim];
    for p in &partial {
        for (a, b) in g.iter_mut().zip(p) {
            *a += b;
        }
    }
    for i in 0..model_dim {
        for j in 0..i {
            g[i * model_dim + j] = g[j * model_dim + i];
        }
    }
    let (_, vecs) = symmetric_eigen(&g, model_dim);
    let mut basis = Vec::with_capacity(dim * model_dim);
    for r in 0..dim {
        let row = &vecs[r * model_dim..(r + 1) * model_dim];
        let pivot = row.iter().fold(0f64, |m, &x| if x.abs() > m.abs() { x } else { m });
        let sign = if pivot < 0.0 { -1.0 } else { 1.0 };
        basis.extend(row.iter().map(|x| (x * sign) as f32));
    }
    Projection { model_dim, dim, basis }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_direction_is_the_dominant_one() {
        // Points spread along (1, 1, 0)/√2, a little noise elsewhere.
        let pts: Vec<Vec<f32>> = (0..200)
            .map(|i| {
                let t = (i as f32 - 100.0) / 50.0;
                vec![t + 0.01 * (i % 7) as f32, t - 0.01 * (i % 5) as f32, 0.05 * ((i % 3) as f32 - 1.0)]
            })
            .collect();
        let refs: Vec<&[f32]> = pts.iter().map(Vec::as_slice).collect();
        let p = fit(&refs, 3, 2);
        let d = &p.basis[..3];
        assert!((d[0] - d[1]).abs() < 0.05 && d[2].abs() < 0.05 && d[0] > 0.0, "{d:?}");
        let again = fit(&refs, 3, 2);
        assert_eq!(p, again, "deterministic");
        let v = p.apply_normalised(&[1.0, 1.0, 0.0]);
        assert!((v[0] - 1.0).abs() < 1e-3, "{v:?}");
    }
}
