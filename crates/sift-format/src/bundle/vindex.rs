//! The vector index: how a bundle's chunk vectors are laid out, and the
//! projection from the model's space into the bundle's.
//!
//! Vector index payload (kind 8, one per bundle, named by the manifest):
//!
//! ```text
//! varint model_dim        dimensions of the model's vectors (384 for all-MiniLM-L6-v2)
//! varint dim              dimensions stored (the projection's)
//! varint probe            a query reads nearest lists until it has this many vectors
//! varint n_lists          the list shards (kind 7), a store named by rule: their count
//! 8 bytes                 and the 8 bytes of their hash (see `table`)
//! n_lists × varint count  vectors per list
//! n_lists × (f32 scale + ⌈dim/2⌉ bytes of int4)   the lists' centroids (omitted with one
//!                         list; the row layout of `encoder::put_int4_row`: choosing which
//!                         lists to read needs only their order, and int4 halves the index)
//! table  projection       one shard (kind 9)
//! ```
//!
//! Projection payload (kind 9): `varint model_dim`, `varint dim`, `dim × model_dim` f32 (LE),
//! row-major. Only hosts that embed queries with the model itself need it; the static
//! encoder's rows are already in the bundle's space.

use super::encoder::{put_int4_row, read_int4_row};
use super::frame::ShardKind;
use super::manifest::ShardRef;
use super::table::{put_store, put_table, read_store, read_table, store_refs};
use super::varint::{self, Reader};
use crate::error::SiftError;

/// At most this many lists in a bundle (a million chunks in lists of ~100).
pub const MAX_LISTS: usize = 1 << 14;

#[derive(Debug, Clone, PartialEq)]
pub struct VectorIndex {
    pub model_dim: usize,
    pub dim: usize,
    pub probe: u32,
    pub lists: Vec<ShardRef>,
    /// The stem of the lists' names (`l-<hash>`).
    pub list_files: String,
    pub counts: Vec<u32>,
    /// `lists × dim`, dequantised (empty with a single list).
    pub centroids: Vec<f32>,
    pub projection: ShardRef,
}

impl VectorIndex {
    pub fn encode(&self) -> Result<Vec<u8>, SiftError> {
        let mut out = Vec::new();
        varint::put(&mut out, self.model_dim as u64);
        varint::put(&mut out, self.dim as u64);
        varint::put(&mut out, u64::from(self.probe));
        varint::put(&mut out, self.lists.len() as u64);
        put_store(&mut out, ShardKind::VectorList, &self.list_files)?;
        for &c in &self.counts {
            varint::put(&mut out, u64::from(c));
        }
        if self.lists.len() > 1 {
            for row in self.centroids.chunks_exact(self.dim) {
                put_int4_row(&mut out, row);
            }
        }
        put_table(&mut out, ShardKind::Projection, std::slice::from_ref(&self.projection))?;
        Ok(out)
    }

    pub fn decode(payload: &[u8], chunks: u32) -> Result<VectorIndex, SiftError> {
        let mut r = Reader::new(payload);
        let model_dim = r.u32()? as usize;
        let dim = r.u32()? as usize;
        if dim == 0 || dim > model_dim || model_dim > 4096 {
            return Err(SiftError::corrupt("vector index dimensions are implausible"));
        }
        let probe = r.u32()?;
        let n = r.u32()? as usize;
        if n > MAX_LISTS {
            return Err(SiftError::corrupt("vector index has more lists than it allows"));
        }
        let list_files = read_store(&mut r, ShardKind::VectorList)?;
        let lists = store_refs(&list_files, n);
        if lists.is_empty() {
            return Err(SiftError::corrupt("vector index has no lists"));
        }
        let counts = (0..lists.len()).map(|_| r.u32()).collect::<Result<Vec<u32>, _>>()?;
        if counts.iter().map(|&c| u64::from(c)).sum::<u64>() != u64::from(chunks) {
            return Err(SiftError::corrupt("vector lists do not add up to the manifest's chunk count"));
        }
        let mut centroids = Vec::new();
        if lists.len() > 1 {
            for _ in 0..lists.len() {
                read_int4_row(&mut r, dim, &mut centroids)?;
            }
        }
        let projection =
            read_table(&mut r, ShardKind::Projection, 1)?.pop().ok_or_else(|| SiftError::corrupt("vector index names no projection"))?;
        if !r.is_empty() {
            return Err(SiftError::corrupt("vector index has trailing data"));
        }
        Ok(VectorIndex { model_dim, dim, probe, lists, list_files, counts, centroids, projection })
    }

    /// The lists a normalised query reads: the nearest until `probe` vectors are covered.
    pub fn lists_for(&self, q: &[f32]) -> Vec<usize> {
        if self.lists.len() == 1 {
            return vec![0];
        }
        probe(&self.centroids, self.dim, &self.counts, q, self.probe as usize)
    }
}

/// The projection into the bundle's space: `dim × model_dim`, row-major; row r is the r-th
/// principal direction of the corpus's chunk vectors (the builder fits it).
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    pub model_dim: usize,
    pub dim: usize,
    pub basis: Vec<f32>,
}

impl Projection {
    /// `v` in the bundle's space, not normalised.
    pub fn apply(&self, v: &[f32]) -> Vec<f32> {
        self.basis.chunks_exact(self.model_dim).map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum()).collect()
    }

    /// `v` in the bundle's space, L2-normalised (a zero vector stays zero).
    pub fn apply_normalised(&self, v: &[f32]) -> Vec<f32> {
        let mut out = self.apply(v);
        normalise(&mut out);
        out
    }
}

/// Scale to unit length (a zero vector stays zero).
pub fn normalise(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The lists to read for a query: nearest centroids first, until at least `min_vectors`
/// vectors are covered (or every list is taken). `sizes[c]`: vectors in list c.
pub fn probe(centroids: &[f32], dim: usize, sizes: &[u32], q: &[f32], min_vectors: usize) -> Vec<usize> {
    let mut order: Vec<(f32, usize)> = centroids.chunks_exact(dim).enumerate().map(|(c, row)| (dot(row, q), c)).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = Vec::new();
    let mut covered = 0usize;
    for (_, c) in order {
        if covered >= min_vectors {
            break;
        }
        covered += sizes.get(c).copied().unwrap_or(0) as usize;
        out.push(c);
    }
    out
}

pub fn encode_projection(p: &Projection) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.basis.len() * 4 + 8);
    varint::put(&mut out, p.model_dim as u64);
    varint::put(&mut out, p.dim as u64);
    for x in &p.basis {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

pub fn decode_projection(payload: &[u8], model_dim: usize, dim: usize) -> Result<Projection, SiftError> {
    let mut r = Reader::new(payload);
    if r.u32()? as usize != model_dim || r.u32()? as usize != dim {
        return Err(SiftError::corrupt("projection dimensions differ from the vector index"));
    }
    let basis: Vec<f32> = r.bytes(model_dim * dim * 4)?.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if !r.is_empty() || basis.iter().any(|x| !x.is_finite()) {
        return Err(SiftError::corrupt("projection has trailing or invalid data"));
    }
    Ok(Projection { model_dim, dim, basis })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_and_projection_round_trip() {
        let files = "l-0123456789abcdef".to_string();
        let idx = VectorIndex {
            model_dim: 6,
            dim: 2,
            probe: 10,
            lists: store_refs(&files, 2),
            list_files: files,
            counts: vec![3, 4],
            centroids: vec![1.0, 0.0, 0.0, 1.0],
            projection: ShardRef::new("p-00000000000000aa.bin", 50, 9),
        };
        let b = idx.encode().unwrap();
        assert_eq!(VectorIndex::decode(&b, 7).unwrap(), idx);
        assert!(VectorIndex::decode(&b, 8).is_err(), "counts must add up");
        assert!(VectorIndex::decode(&b[..b.len() - 2], 7).is_err());
        let p = Projection { model_dim: 3, dim: 2, basis: vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0] };
        assert_eq!(decode_projection(&encode_projection(&p), 3, 2).unwrap(), p);
        assert!(decode_projection(&encode_projection(&p), 4, 2).is_err());
        assert_eq!(p.apply_normalised(&[3.0, 4.0, 9.0]), vec![0.6, 0.8]);
    }

    #[test]
    fn probing_takes_the_nearest_lists_until_enough_vectors() {
        let dim = 2;
        let centroids = [1.0, 0.0, 0.0, 1.0, -1.0, 0.0];
        let got = probe(&centroids, dim, &[10, 10, 10], &[0.9, 0.1], 15);
        assert_eq!(got, vec![0, 1]);
        assert_eq!(probe(&centroids, dim, &[10, 10, 10], &[0.9, 0.1], 100).len(), 3);
        assert_eq!(probe(&centroids, dim, &[10, 10, 10], &[0.9, 0.1], 0), Vec::<usize>::new());
    }
}
