//! Fitting the static query encoder to a corpus.
//!
//! The encoder is a table `E` with one row per WordPiece token; a text's vector is the
//! normalised sum of its tokens' rows. The rows are fitted so that, for the corpus's own
//! texts (chunks, titles, headings, sentences), this sum points where the model's embedding
//! of the text points:
//!
//! ```text
//! minimise  Σ_texts ‖ Σ_t a_it E_t − y_i ‖²  +  λ Σ_t ‖ E_t − P_t ‖²
//! a_it = count_it · idf_t / Σ_t' count_it' · idf_t'     (the text's idf-weighted token mix)
//! y_i  = the model's embedding of text i, in the bundle's space
//! P_t  = the model's embedding of token t alone, minus the frequency-weighted mean of those
//! ```
//!
//! The prior keeps rare tokens meaningful (a token seen in two sentences is mostly its own
//! embedding); the mean removal takes out the component every single-token embedding shares.
//! Stored rows are `idf_t · E_t`, so a query adds rows and normalises, nothing else. The fit
//! comes close to the model's own query vectors, far above single-token embeddings
//! (`bench/results/`).

use super::linalg::{par_fill_rows, ridge_with_prior, Sparse};
use super::projection::Projection;
use std::collections::HashMap;

/// A text of the corpus with the model's embedding of it (the model's dimension), or an
/// empty one when the model did not read it (a build over its budget samples the texts it
/// embeds): the text then counts toward its tokens' frequencies only.
#[derive(Debug, Clone)]
pub struct TrainingText {
    pub tokens: Vec<u32>,
    pub embedding: Vec<f32>,
}

#[derive(Debug, Clone, Copy)]
pub struct FitParams {
    /// Pull toward the prior (relative to a text's unit-sum token mix).
    pub lambda: f32,
    /// Relative residual at which the solver stops.
    pub tolerance: f64,
    pub max_iterations: usize,
}

impl Default for FitParams {
    fn default() -> Self {
        // Relevance is flat from a tolerance of 1e-3 to 1e-2; 5e-3 takes a third fewer
        // iterations than 1e-3.
        FitParams { lambda: 0.3, tolerance: 5e-3, max_iterations: 200 }
    }
}

impl FitParams {
    /// When the model read a sample of the site's texts: a weaker pull toward the prior, so
    /// the rows hold more of what the sampled texts teach. 0.1 ranked better than 0.3 and 1
    /// on every collection measured where the encoder also makes the chunks' vectors, and
    /// better than 0.2 where the model read every chunk and a share of the rest
    /// (bench/results/2026-12-07-hybrid-build-own-work.md).
    pub fn for_sample() -> FitParams {
        FitParams { lambda: 0.1, ..FitParams::default() }
    }
}

/// The fitted table.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedEncoder {
    pub dim: usize,
    /// Token ids in row order: the most frequent first (a query's common tokens then share
    /// the first row shards).
    pub tokens: Vec<u32>,
    /// `tokens.len() × dim`, weighted: a text's vector is the normalised sum of its rows.
    pub rows: Vec<f32>,
    pub report: FitReport,
}

impl FittedEncoder {
    /// What makes a text's unit vector as the engine makes a query's: its tokens' rows
    /// summed (a token without a row adds nothing), normalised; zeros when none has a row.
    pub fn encoder(&self) -> impl Fn(&[u32]) -> Vec<f32> + Sync + '_ {
        // Each token's row by id, in a table: a big site's chunks look up tens of millions.
        let mut row_of: Vec<Option<usize>> = vec![None; self.tokens.iter().max().map_or(0, |&t| t as usize + 1)];
        for (r, &t) in self.tokens.iter().enumerate() {
            row_of[t as usize] = Some(r);
        }
        move |tokens| {
            let mut v = vec![0f32; self.dim];
            for r in tokens.iter().filter_map(|&t| row_of.get(t as usize).copied().flatten()) {
                for (x, y) in v.iter_mut().zip(&self.rows[r * self.dim..(r + 1) * self.dim]) {
                    *x += y;
                }
            }
            super::projection::normalise(&mut v);
            v
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FitReport {
    pub texts: usize,
    pub tokens: usize,
    pub iterations: usize,
    pub residual: f64,
}

/// Fit the encoder. `prior(t)`: the model's embedding of token `t` alone (None: no prior,
/// the row is pulled toward zero). `skip`: token ids that carry no meaning of their own
/// (`[CLS]`, `[SEP]`, `[PAD]`, `[UNK]`). `extra`: tokens the texts do not use that get a
/// row anyway — their prior, weighted as a token no text has (the highest idf) — after
/// the corpus's. `texts`: each text's token ids and the model's embedding of it, None when
/// the model did not read it (it counts toward the tokens' frequencies, which set their
/// idf and the rows' order, and is not fitted to).
pub fn fit<'t, Ids: AsRef<[u32]>>(
    texts: impl IntoIterator<Item = (Ids, Option<&'t [f32]>)>,
    prior: &(dyn Fn(u32) -> Option<Vec<f32>> + Sync),
    projection: &Projection,
    skip: &[u32],
    extra: &[u32],
    params: FitParams,
) -> FittedEncoder {
    let dim = projection.dim;
    // Token counts per text; document frequency and total frequency per token. Only the
    // embedded texts' counts are kept (a sampled build's chunks are counted, not fitted to,
    // and holding all their counts would take most of a big site's memory).
    let bag = |ids: &[u32]| -> Vec<(u32, u32)> {
        let mut b: Vec<u32> = ids.iter().copied().filter(|id| !skip.contains(id)).collect();
        b.sort_unstable();
        let mut out: Vec<(u32, u32)> = Vec::new();
        for id in b {
            match out.last_mut() {
                Some((last, c)) if *last == id => *c += 1,
                _ => out.push((id, 1)),
            }
        }
        out
    };
    // By token id (ids are the vocabulary's, so the table is its size): (df, tf), and the
    // last text that counted toward df. Counted without a bag, which only the embedded
    // texts need: a big site's chunks hold tens of millions of tokens.
    let mut freq: Vec<(u32, u64)> = Vec::new();
    let mut last_text: Vec<usize> = Vec::new();
    let mut n_texts = 0usize;
    let mut used: Vec<(&[f32], Vec<(u32, u32)>)> = Vec::new();
    for (ids, embedding) in texts {
        let ids = ids.as_ref();
        let text = n_texts + 1;
        let mut counted = false;
        for &id in ids.iter().filter(|id| !skip.contains(id)) {
            counted = true;
            let i = id as usize;
            if i >= freq.len() {
                freq.resize(i + 1, (0, 0));
                last_text.resize(i + 1, 0);
            }
            freq[i].1 += 1;
            if last_text[i] != text {
                last_text[i] = text;
                freq[i].0 += 1;
            }
        }
        if !counted {
            continue;
        }
        n_texts = text;
        if let Some(embedding) = embedding {
            used.push((embedding, bag(ids)));
        }
    }
    let df = |t: u32| freq.get(t as usize).map_or(0, |f| f.0);
    let mut tokens: Vec<u32> = (0..freq.len() as u32).filter(|&t| df(t) > 0).collect();
    tokens.sort_by(|&a, &b| freq[b as usize].1.cmp(&freq[a as usize].1).then(a.cmp(&b)));
    let mut extra: Vec<u32> = extra.iter().copied().filter(|&t| df(t) == 0 && !skip.contains(&t)).collect();
    extra.sort_unstable();
    extra.dedup();
    tokens.extend(extra);
    let col: HashMap<u32, u32> = tokens.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
    let idf: Vec<f32> = tokens.iter().map(|&t| ((n_texts as f64 + 1.0) / (f64::from(df(t)) + 0.5)).ln() as f32).collect();

    // The design matrix: each embedded text's idf-weighted token mix, summing to one.
    let rows: Vec<Vec<(u32, f32)>> = used
        .iter()
        .map(|(_, bag)| {
            let cols: Vec<(u32, f32)> = bag.iter().map(|&(id, c)| (col[&id], c as f32 * idf[col[&id] as usize])).collect();
            let total: f32 = cols.iter().map(|c| c.1).sum();
            cols.into_iter().map(|(c, v)| (c, v / total)).collect()
        })
        .collect();
    let a = Sparse::from_rows(&rows, tokens.len());
    // AᵀY in the model's space, then projected: cheaper than projecting every text.
    let model_dim = projection.model_dim;
    let aty_model = a.mul_t_rows(model_dim, |r| used[r].0);
    let mut aty = vec![0f32; tokens.len() * dim];
    par_fill_rows(&mut aty, dim, |t, row| row.copy_from_slice(&projection.apply(&aty_model[t * model_dim..(t + 1) * model_dim])));
    drop(aty_model);

    // The prior: single-token embeddings minus their frequency-weighted mean (each asked
    // for twice rather than held: the model's dimension for every row is tens of MB).
    let mut mean = vec![0f64; projection.model_dim];
    let mut weight = 0f64;
    for &t in &tokens {
        if let Some(p) = prior(t) {
            let w = freq.get(t as usize).map_or(0, |f| f.1) as f64;
            for (m, x) in mean.iter_mut().zip(&p) {
                *m += w * f64::from(*x);
            }
            weight += w;
        }
    }
    let mean: Vec<f32> = mean.iter().map(|m| (m / weight.max(1e-12)) as f32).collect();
    let mut p = vec![0f32; tokens.len() * dim];
    par_fill_rows(&mut p, dim, |t, row| {
        if let Some(v) = prior(tokens[t]) {
            row.copy_from_slice(&projection.apply(&v.iter().zip(&mean).map(|(x, m)| x - m).collect::<Vec<f32>>()));
        }
    });

    let (e, solve) = ridge_with_prior(&a, &aty, &p, dim, params.lambda, params.tolerance, params.max_iterations);
    let rows: Vec<f32> = e.chunks_exact(dim).zip(&idf).flat_map(|(row, w)| row.iter().map(move |x| x * w)).collect();
    FittedEncoder {
        dim,
        report: FitReport { texts: used.len(), tokens: tokens.len(), iterations: solve.iterations, residual: solve.residual },
        tokens,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts are bags of "topic" tokens; a text's embedding is its topics' directions summed.
    /// The fitted encoder must send a new mix of tokens where the model would.
    #[test]
    fn the_fit_reproduces_a_linear_model_of_the_texts() {
        let dim = 4;
        let dirs: [[f32; 4]; 5] =
            [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.0, 0.0]];
        let embed = |toks: &[u32]| {
            let mut v = vec![0f32; dim];
            for &t in toks {
                for (x, d) in v.iter_mut().zip(dirs[t as usize - 10]) {
                    *x += d;
                }
            }
            super::super::projection::normalise(&mut v);
            v
        };
        let mut texts = Vec::new();
        for a in 10..15u32 {
            for b in 10..15u32 {
                let toks = vec![101, a, b, 102];
                texts.push(TrainingText { embedding: embed(&toks[1..3]), tokens: toks });
            }
        }
        let identity =
            Projection { model_dim: dim, dim, basis: (0..dim * dim).map(|i| if i % (dim + 1) == 0 { 1.0 } else { 0.0 }).collect() };
        let f = fit(
            texts.iter().map(|t: &TrainingText| (t.tokens.as_slice(), Some(t.embedding.as_slice()))),
            &|t| (10..15).contains(&t).then(|| embed(&[t])),
            &identity,
            &[101, 102],
            &[],
            FitParams { lambda: 0.01, ..Default::default() },
        );
        assert_eq!(f.tokens.len(), 5, "special tokens are not rows");
        let row = |t: u32| &f.rows[f.tokens.iter().position(|&x| x == t).unwrap() * dim..][..dim];
        let mut q: Vec<f32> = row(10).iter().zip(row(12)).map(|(a, b)| a + b).collect();
        super::super::projection::normalise(&mut q);
        let want = embed(&[10, 12]);
        let cos: f32 = q.iter().zip(&want).map(|(a, b)| a * b).sum();
        assert!(cos > 0.98, "cosine {cos}: {q:?} vs {want:?}");
        assert!(f.report.residual < 1e-3, "{:?}", f.report);
    }
}
