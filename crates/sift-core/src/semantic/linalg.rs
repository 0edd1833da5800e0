//! The little linear algebra the semantic build needs, written for determinism: every
//! parallel loop splits work by rows or columns and every sum runs in a fixed order, so the
//! same inputs give the same bits on any number of cores.

/// `items.map(f)` on every core when the `parallel` feature is on, in order.
pub(crate) fn par_map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}

/// Rows `0..n` mapped by `f`, in parallel in fixed blocks, in order.
pub(crate) fn par_rows<U: Send>(n: usize, f: impl Fn(usize) -> U + Sync + Send) -> Vec<U> {
    let idx: Vec<usize> = (0..n).collect();
    par_map(&idx, |&i| f(i))
}

/// Fill `out` (rows of `k` values) row by row with `f(row, &mut row_values)`, in parallel
/// over blocks of rows. Each row is written by one call: the result does not depend on how
/// the work was split.
pub(crate) fn par_fill_rows(out: &mut [f32], k: usize, f: impl Fn(usize, &mut [f32]) + Sync + Send) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        const ROWS_PER_TASK: usize = 256;
        out.par_chunks_mut(k * ROWS_PER_TASK).enumerate().for_each(|(b, block)| {
            for (r, row) in block.chunks_exact_mut(k).enumerate() {
                f(b * ROWS_PER_TASK + r, row);
            }
        });
    }
    #[cfg(not(feature = "parallel"))]
    for (r, row) in out.chunks_exact_mut(k).enumerate() {
        f(r, row);
    }
}

/// Eigenvalues and eigenvectors of a symmetric `n × n` matrix (row-major), by cyclic
/// Jacobi rotations. Returns the eigenvalues in descending order and the matching
/// eigenvectors as the rows of an `n × n` matrix.
pub fn symmetric_eigen(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    assert_eq!(a.len(), n * n);
    let mut a = a.to_vec();
    let mut v = vec![0f64; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    for _sweep in 0..64 {
        let off: f64 = (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j))).map(|(i, j)| a[i * n + j].powi(2)).sum();
        let total: f64 = a.iter().map(|x| x * x).sum();
        if off <= 1e-22 * total.max(1e-300) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq.abs() < 1e-300 {
                    continue;
                }
                let (app, aqq) = (a[p * n + p], a[q * n + q]);
                let theta = (aqq - app) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[j * n + j].total_cmp(&a[i * n + i]).then(i.cmp(&j)));
    let values = order.iter().map(|&i| a[i * n + i]).collect();
    let mut vectors = vec![0f64; n * n];
    for (r, &i) in order.iter().enumerate() {
        for k in 0..n {
            vectors[r * n + k] = v[k * n + i];
        }
    }
    (values, vectors)
}

/// A sparse matrix in compressed rows, with its transpose in compressed rows too (so both
/// `A·X` and `Aᵀ·Z` are parallel over output rows, each summed in a fixed order).
pub struct Sparse {
    pub rows: usize,
    pub cols: usize,
    row_start: Vec<usize>,
    row_col: Vec<u32>,
    row_val: Vec<f32>,
    col_start: Vec<usize>,
    col_row: Vec<u32>,
    col_val: Vec<f32>,
}

impl Sparse {
    /// From rows of (column, value), columns below `cols`.
    pub fn from_rows(rows: &[Vec<(u32, f32)>], cols: usize) -> Sparse {
        let mut row_start = vec![0usize];
        let (mut row_col, mut row_val) = (Vec::new(), Vec::new());
        let mut counts = vec![0usize; cols];
        for r in rows {
            for &(c, v) in r {
                row_col.push(c);
                row_val.push(v);
                counts[c as usize] += 1;
            }
            row_start.push(row_col.len());
        }
        let mut col_start = vec![0usize; cols + 1];
        for c in 0..cols {
            col_start[c + 1] = col_start[c] + counts[c];
        }
        let mut fill = col_start.clone();
        let mut col_row = vec![0u32; row_col.len()];
        let mut col_val = vec![0f32; row_col.len()];
        for (i, r) in rows.iter().enumerate() {
            for &(c, v) in r {
                let at = fill[c as usize];
                col_row[at] = i as u32;
                col_val[at] = v;
                fill[c as usize] += 1;
            }
        }
        Sparse { rows: rows.len(), cols, row_start, row_col, row_val, col_start, col_row, col_val }
    }

    /// `A · X` for a dense `cols × k` matrix (row-major): `rows × k`.
    pub fn mul(&self, x: &[f32], k: usize) -> Vec<f32> {
        let mut out = vec![0f32; self.rows * k];
        self.mul_into(x, k, &mut out);
        out
    }

    /// `A · X` into `out` (`rows × k`).
    pub fn mul_into(&self, x: &[f32], k: usize, out: &mut [f32]) {
        par_fill_rows(out, k, |i, row| {
            row.fill(0.0);
            for at in self.row_start[i]..self.row_start[i + 1] {
                let (c, v) = (self.row_col[at] as usize, self.row_val[at]);
                axpy(row, v, &x[c * k..(c + 1) * k]);
            }
        });
    }

    /// `Aᵀ · Z` for a dense `rows × k` matrix: `cols × k`.
    pub fn mul_t(&self, z: &[f32], k: usize) -> Vec<f32> {
        self.mul_t_rows(k, |i| &z[i * k..(i + 1) * k])
    }

    /// `Aᵀ · Z` where row `i` of `Z` is `z(i)` (`k` values): `cols × k`.
    pub fn mul_t_rows<'z>(&self, k: usize, z: impl Fn(usize) -> &'z [f32] + Sync + Send) -> Vec<f32> {
        let mut out = vec![0f32; self.cols * k];
        self.mul_t_into(k, z, &mut out);
        out
    }

    fn mul_t_into<'z>(&self, k: usize, z: impl Fn(usize) -> &'z [f32] + Sync + Send, out: &mut [f32]) {
        par_fill_rows(out, k, |c, row| {
            row.fill(0.0);
            for at in self.col_start[c]..self.col_start[c + 1] {
                let (i, v) = (self.col_row[at] as usize, self.col_val[at]);
                axpy(row, v, z(i));
            }
        });
    }

    /// The diagonal of `AᵀA`.
    pub fn gram_diagonal(&self) -> Vec<f64> {
        (0..self.cols).map(|c| (self.col_start[c]..self.col_start[c + 1]).map(|at| f64::from(self.col_val[at]).powi(2)).sum()).collect()
    }
}

#[inline]
fn axpy(out: &mut [f32], a: f32, x: &[f32]) {
    for (o, v) in out.iter_mut().zip(x) {
        *o += a * v;
    }
}

/// What the solver reports.
#[derive(Debug, Clone, Copy)]
pub struct SolveReport {
    pub iterations: usize,
    /// The largest relative residual ‖b − Mx‖/‖b‖ over the right-hand sides.
    pub residual: f64,
}

/// Ridge regression with a prior: `X = argmin ‖A·X − Y‖² + λ‖X − P‖²`, i.e. the solution of
/// `(AᵀA + λI)·X = AᵀY + λP`, for `k` right-hand sides at once, by conjugate gradients with a
/// Jacobi preconditioner (one independent CG per column, run in lockstep). `aty`: `AᵀY`
/// (`cols × k`), `prior`: `cols × k`; the prior is also the starting point. Stops when every
/// column's relative residual is below `tol`, or after `max_iter` iterations.
pub fn ridge_with_prior(
    a: &Sparse,
    aty: &[f32],
    prior: &[f32],
    k: usize,
    lambda: f32,
    tol: f64,
    max_iter: usize,
) -> (Vec<f32>, SolveReport) {
    let n = a.cols;
    let mut b = aty.to_vec();
    for (bi, pi) in b.iter_mut().zip(prior) {
        *bi += lambda * pi;
    }
    // (AᵀA + λI)·x into `out`, through a reused `rows × k` buffer.
    let mut tmp = vec![0f32; a.rows * k];
    let mut apply = |x: &[f32], out: &mut [f32]| {
        a.mul_into(x, k, &mut tmp);
        let tmp = &tmp;
        a.mul_t_into(k, |i| &tmp[i * k..(i + 1) * k], out);
        for (o, v) in out.iter_mut().zip(x) {
            *o += lambda * v;
        }
    };
    let precond: Vec<f32> = a.gram_diagonal().iter().map(|d| (1.0 / (d + f64::from(lambda))) as f32).collect();
    let col_dot = |u: &[f32], v: &[f32]| -> Vec<f64> {
        let mut s = vec![0f64; k];
        for (ur, vr) in u.chunks_exact(k).zip(v.chunks_exact(k)) {
            for j in 0..k {
                s[j] += f64::from(ur[j]) * f64::from(vr[j]);
            }
        }
        s
    };
    let mut x = prior.to_vec();
    let mut ap = vec![0f32; n * k];
    apply(&x, &mut ap);
    let mut r: Vec<f32> = b.iter().zip(&ap).map(|(bi, m)| bi - m).collect();
    let b_norm: Vec<f64> = col_dot(&b, &b).into_iter().map(|s| s.sqrt().max(1e-30)).collect();
    let precondition =
        |r: &[f32]| -> Vec<f32> { r.chunks_exact(k).zip(&precond).flat_map(|(row, m)| row.iter().map(move |v| v * m)).collect() };
    let mut z = precondition(&r);
    let mut p = z.clone();
    let mut rz = col_dot(&r, &z);
    let mut report = SolveReport { iterations: 0, residual: 1.0 };
    for it in 0..max_iter {
        let rn = col_dot(&r, &r);
        report = SolveReport { iterations: it, residual: (0..k).map(|j| rn[j].sqrt() / b_norm[j]).fold(0.0, f64::max) };
        if report.residual < tol {
            break;
        }
        apply(&p, &mut ap);
        let pap = col_dot(&p, &ap);
        let alpha: Vec<f32> = (0..k).map(|j| if pap[j] > 0.0 { (rz[j] / pap[j]) as f32 } else { 0.0 }).collect();
        for i in 0..n {
            for j in 0..k {
                x[i * k + j] += alpha[j] * p[i * k + j];
                r[i * k + j] -= alpha[j] * ap[i * k + j];
            }
        }
        z = precondition(&r);
        let rz_new = col_dot(&r, &z);
        let beta: Vec<f32> = (0..k).map(|j| if rz[j] > 0.0 { (rz_new[j] / rz[j]) as f32 } else { 0.0 }).collect();
        for i in 0..n {
            for j in 0..k {
                p[i * k + j] = z[i * k + j] + beta[j] * p[i * k + j];
            }
        }
        rz = rz_new;
        report.iterations = it + 1;
    }
    (x, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_finds_the_eigenpairs_of_a_symmetric_matrix() {
        // A = Q diag(5, 2, 1) Qᵀ for a rotation Q.
        let (c, s) = (0.6f64, 0.8f64);
        let q = [c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0];
        let d = [5.0, 2.0, 1.0];
        let mut a = [0f64; 9];
        for i in 0..3 {
            for j in 0..3 {
                a[i * 3 + j] = (0..3).map(|k| q[i * 3 + k] * d[k] * q[j * 3 + k]).sum();
            }
        }
        let (vals, vecs) = symmetric_eigen(&a, 3);
        for (v, want) in vals.iter().zip(d) {
            assert!((v - want).abs() < 1e-9, "{vals:?}");
        }
        // The first eigenvector is ±(c, s, 0).
        let dot = vecs[0] * c + vecs[1] * s;
        assert!((dot.abs() - 1.0).abs() < 1e-9, "{vecs:?}");
    }

    #[test]
    fn ridge_solves_the_normal_equations() {
        // 5 observations of 3 features, 2 targets; compare with the dense solution.
        let rows: Vec<Vec<(u32, f32)>> =
            vec![vec![(0, 1.0), (1, 0.5)], vec![(1, 1.0)], vec![(2, 2.0), (0, 0.2)], vec![(0, 1.0), (2, 1.0)], vec![(1, 0.3), (2, 0.7)]];
        let a = Sparse::from_rows(&rows, 3);
        let y = [1.0, 0.0, 0.5, 0.5, 0.0, 1.0, 1.0, 1.0, 0.2, 0.8];
        let prior = [0.1, 0.1, 0.0, 0.0, -0.1, 0.2];
        let lambda = 0.3;
        let (x, rep) = ridge_with_prior(&a, &a.mul_t(&y, 2), &prior, 2, lambda, 1e-10, 100);
        assert!(rep.residual < 1e-6, "{rep:?}");
        // Check (AᵀA + λI)x = Aᵀy + λp directly.
        let lhs = {
            let mut m = a.mul_t(&a.mul(&x, 2), 2);
            m.iter_mut().zip(&x).for_each(|(o, v)| *o += lambda * v);
            m
        };
        let mut rhs = a.mul_t(&y, 2);
        rhs.iter_mut().zip(&prior).for_each(|(o, p)| *o += lambda * p);
        for (l, r) in lhs.iter().zip(&rhs) {
            assert!((l - r).abs() < 1e-4, "{lhs:?} vs {rhs:?}");
        }
    }
}
