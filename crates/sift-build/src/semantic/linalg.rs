//! The little linear algebra the semantic build needs, written for determinism: every
//! parallel loop splits work by rows or columns and every sum runs in a fixed order, so the
//! same inputs give the same bits on any number of cores.

pub(crate) use crate::par_map;

/// Rows `0..n` mapped by `f`, in parallel in fixed blocks, in order.
pub(crate) fn par_rows<U: Send>(n: usize, f: impl Fn(usize) -> U + Sync + Send) -> Vec<U> {
    let idx: Vec<usize> = (0..n).collect();
    par_map(&idx, |&i| f(i))
}

/// Fill `out` (rows of `k` values) row by row with `f(row, &mut row_values)`, in parallel
/// over blocks of rows. Each row is written by one call: the result does not depend on how
/// the work was split.
pub(crate) fn par_fill_rows(out: &mut [f32], k: usize, f: impl Fn(usize, &mut [f32]) + Sync + Send) {
    {
        use rayon::prelude::*;
        const ROWS_PER_TASK: usize = 256;
        out.par_chunks_mut(k * ROWS_PER_TASK).enumerate().for_each(|(b, block)| {
            for (r, row) in block.chunks_exact_mut(k).enumerate() {
                f(b * ROWS_PER_TASK + r, row);
            }
        });
    }
}

/// Eigenvalues and eigenvectors of a symmetric `n × n` matrix (row-major): Householder
/// reduction to tridiagonal form, then the QL algorithm with implicit shifts (Numerical
/// Recipes' tred2/tqli) — O(n³) once, 0.1 s for the model's 384 dimensions. Returns the
/// eigenvalues in descending order and the matching unit eigenvectors as the rows of an
/// `n × n` matrix.
pub fn symmetric_eigen(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    assert_eq!(a.len(), n * n);
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    let mut z = a.to_vec(); // becomes the eigenvectors (columns)
    let mut d = vec![0f64; n];
    let mut e = vec![0f64; n];
    // tred2: Householder reduction.
    for i in (1..n).rev() {
        let l = i - 1;
        let mut h = 0.0;
        if l > 0 {
            let scale: f64 = (0..=l).map(|k| z[i * n + k].abs()).sum();
            if scale == 0.0 {
                e[i] = z[i * n + l];
            } else {
                for k in 0..=l {
                    z[i * n + k] /= scale;
                    h += z[i * n + k] * z[i * n + k];
                }
                let f = z[i * n + l];
                let g = if f >= 0.0 { -h.sqrt() } else { h.sqrt() };
                e[i] = scale * g;
                h -= f * g;
                z[i * n + l] = f - g;
                let mut f = 0.0;
                for j in 0..=l {
                    z[j * n + i] = z[i * n + j] / h;
                    let mut g = 0.0;
                    for k in 0..=j {
                        g += z[j * n + k] * z[i * n + k];
                    }
                    for k in j + 1..=l {
                        g += z[k * n + j] * z[i * n + k];
                    }
                    e[j] = g / h;
                    f += e[j] * z[i * n + j];
                }
                let hh = f / (h + h);
                for j in 0..=l {
                    let f = z[i * n + j];
                    let g = e[j] - hh * f;
                    e[j] = g;
                    for k in 0..=j {
                        z[j * n + k] -= f * e[k] + g * z[i * n + k];
                    }
                }
            }
        } else {
            e[i] = z[i * n + l];
        }
        d[i] = h;
    }
    d[0] = 0.0;
    e[0] = 0.0;
    for i in 0..n {
        if d[i] != 0.0 {
            for j in 0..i {
                let mut g = 0.0;
                for k in 0..i {
                    g += z[i * n + k] * z[k * n + j];
                }
                for k in 0..i {
                    z[k * n + j] -= g * z[k * n + i];
                }
            }
        }
        d[i] = z[i * n + i];
        z[i * n + i] = 1.0;
        for j in 0..i {
            z[j * n + i] = 0.0;
            z[i * n + j] = 0.0;
        }
    }
    // tqli: implicit QL on the tridiagonal matrix.
    for i in 1..n {
        e[i - 1] = e[i];
    }
    e[n - 1] = 0.0;
    for l in 0..n {
        let mut iter = 0;
        loop {
            let mut m = l;
            while m + 1 < n {
                let dd = d[m].abs() + d[m + 1].abs();
                if e[m].abs() <= f64::EPSILON * dd {
                    break;
                }
                m += 1;
            }
            if m == l || iter == 60 {
                break;
            }
            iter += 1;
            let mut g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let mut r = g.hypot(1.0);
            g = d[m] - d[l] + e[l] / (g + if g >= 0.0 { r.abs() } else { -r.abs() });
            let (mut s, mut c, mut p) = (1.0, 1.0, 0.0);
            let mut i = m;
            let mut underflow = false;
            while i > l {
                i -= 1;
                let f = s * e[i];
                let b = c * e[i];
                r = f.hypot(g);
                e[i + 1] = r;
                if r == 0.0 {
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    underflow = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2.0 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
                for k in 0..n {
                    let f = z[k * n + i + 1];
                    z[k * n + i + 1] = s * z[k * n + i] + c * f;
                    z[k * n + i] = c * z[k * n + i] - s * f;
                }
            }
            if underflow {
                continue;
            }
            d[l] -= p;
            e[l] = g;
            e[m] = 0.0;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| d[j].total_cmp(&d[i]).then(i.cmp(&j)));
    let values = order.iter().map(|&i| d[i]).collect();
    let mut vectors = vec![0f64; n * n];
    for (r, &i) in order.iter().enumerate() {
        for k in 0..n {
            vectors[r * n + k] = z[k * n + i];
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
    fn eigenpairs_of_a_random_symmetric_matrix_reconstruct_it() {
        let n = 12;
        let mut seed = 7u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 1000) as f64 / 500.0 - 1.0
        };
        let mut a = vec![0f64; n * n];
        for i in 0..n {
            for j in 0..=i {
                let v = rnd();
                a[i * n + j] = v;
                a[j * n + i] = v;
            }
        }
        let (vals, vecs) = symmetric_eigen(&a, n);
        assert!(vals.windows(2).all(|w| w[0] >= w[1]), "descending");
        // A v = λ v for every pair, and the vectors are orthonormal.
        for r in 0..n {
            let v = &vecs[r * n..(r + 1) * n];
            for i in 0..n {
                let av: f64 = (0..n).map(|k| a[i * n + k] * v[k]).sum();
                assert!((av - vals[r] * v[i]).abs() < 1e-9, "pair {r}");
            }
            for s in 0..n {
                let dot: f64 = (0..n).map(|k| v[k] * vecs[s * n + k]).sum();
                assert!((dot - if r == s { 1.0 } else { 0.0 }).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn the_eigenpairs_of_a_known_matrix() {
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
