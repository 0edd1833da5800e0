//! The vector index: how a bundle's chunk vectors are laid out, and the
//! projection from the model's space into the bundle's.
//!
//! A partitioned set holds its lists' centroids in the index while they are few. Past that
//! it is found in two steps: the index holds a centroid for each *group* of lists, a
//! group's shard (kind 17) holds its lists' centroids, and a query reads the nearest
//! groups, then the nearest lists in them. Why two levels: one centroid per list grows
//! with the site (1,722 lists, 60 kB, on a 32k-page API reference) and every semantic
//! query reads the index; groups keep both steps a few kB. Why not always: on a smaller
//! site the groups save few bytes, cost a round of fetches, and choose lists less well.
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
//! varint n_groups         groups of lists (0: none)
//! without groups, more than one list:
//! n_lists × (f32 scale + ⌈dim/2⌉ bytes of int4)   the lists' centroids
//! with groups:
//! varint group_probe      a query reads nearest groups until they hold this many vectors
//! 8 bytes                 the hash of the groups' store (kind 17, named by rule)
//! n_groups × varint size  lists per group: group g holds the next `size` list numbers
//! n_groups × (f32 scale + ⌈dim/2⌉ bytes of int4)   the groups' centroids
//! table  projection       one shard (kind 9)
//! ```
//!
//! Centroids are int4 rows (the row layout of `encoder::put_int4_row`): choosing what to
//! read needs only their order, and int4 halves them.
//!
//! List group payload (kind 17): a row shard of `encoder` (`encode_row_shard`: `varint g`,
//! its place in the store, `varint dim`, `varint n`), its n lists' centroids as int4 rows.
//!
//! Projection payload (kind 9): `varint model_dim`, `varint dim`, `dim × model_dim` f32 (LE),
//! row-major. Only hosts that embed queries with the model itself need it; the static
//! encoder's rows are already in the bundle's space.

use super::encoder::{put_int4_row, read_int4_row};
use super::frame::ShardKind;
use super::manifest::ShardRef;
use super::table::{put_store, put_table, read_store, read_table, store_refs};
use sift_base::error::SiftError;
use sift_base::varint::{self, Reader};
use std::ops::Range;

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
    /// Without groups: `lists × dim`, the lists' centroids (empty with one list).
    pub centroids: Vec<f32>,
    /// The groups of lists (none with few lists).
    pub groups: ListGroups,
    pub projection: ShardRef,
}

/// The lists in groups: group g holds lists `starts[g]..starts[g + 1]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListGroups {
    pub probe: u32,
    /// The stem of the groups' names (`c-<hash>`; empty without groups).
    pub files: String,
    pub shards: Vec<ShardRef>,
    /// Lists per group.
    pub sizes: Vec<u32>,
    /// `groups × dim`, dequantised.
    pub centroids: Vec<f32>,
}

impl ListGroups {
    /// The list numbers of group `g`.
    pub fn lists(&self, g: usize) -> Range<usize> {
        let start: usize = self.sizes[..g].iter().map(|&s| s as usize).sum();
        start..start + self.sizes[g] as usize
    }
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
        let g = &self.groups;
        varint::put(&mut out, g.sizes.len() as u64);
        if g.sizes.is_empty() && self.lists.len() > 1 {
            for row in self.centroids.chunks_exact(self.dim) {
                put_int4_row(&mut out, row);
            }
        }
        if !g.sizes.is_empty() {
            varint::put(&mut out, u64::from(g.probe));
            put_store(&mut out, ShardKind::ListGroup, &g.files)?;
            for &s in &g.sizes {
                varint::put(&mut out, u64::from(s));
            }
            for row in g.centroids.chunks_exact(self.dim) {
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
        let n_groups = r.u32()? as usize;
        if (n == 1 && n_groups > 0) || n_groups > n {
            return Err(SiftError::corrupt("vector index groups its lists wrongly"));
        }
        let mut centroids = Vec::new();
        if n_groups == 0 && n > 1 {
            for _ in 0..n {
                read_int4_row(&mut r, dim, &mut centroids)?;
            }
        }
        let mut groups = ListGroups::default();
        if n_groups > 0 {
            groups.probe = r.u32()?;
            groups.files = read_store(&mut r, ShardKind::ListGroup)?;
            groups.shards = store_refs(&groups.files, n_groups);
            groups.sizes = (0..n_groups).map(|_| r.u32()).collect::<Result<Vec<u32>, _>>()?;
            if groups.sizes.contains(&0) || groups.sizes.iter().map(|&s| u64::from(s)).sum::<u64>() != n as u64 {
                return Err(SiftError::corrupt("vector index groups do not add up to its lists"));
            }
            for _ in 0..n_groups {
                read_int4_row(&mut r, dim, &mut groups.centroids)?;
            }
        }
        let projection =
            read_table(&mut r, ShardKind::Projection, 1)?.pop().ok_or_else(|| SiftError::corrupt("vector index names no projection"))?;
        if !r.is_empty() {
            return Err(SiftError::corrupt("vector index has trailing data"));
        }
        Ok(VectorIndex { model_dim, dim, probe, lists, list_files, counts, centroids, groups, projection })
    }

    /// Vectors in each group's lists.
    pub fn group_vectors(&self) -> Vec<u32> {
        (0..self.groups.sizes.len()).map(|g| self.counts[self.groups.lists(g)].iter().sum()).collect()
    }

    /// The lists a normalised query reads when that needs no group (one list, or the lists'
    /// centroids here): the nearest until they hold `budget` vectors. None: read groups.
    pub fn lists_without_groups(&self, q: &[f32], budget: usize) -> Option<Vec<usize>> {
        match (self.lists.len(), self.groups.sizes.is_empty()) {
            (1, _) => Some(vec![0]),
            (_, true) => Some(probe(&self.centroids, self.dim, &self.counts, q, budget)),
            _ => None,
        }
    }

    /// The groups a normalised query reads: the nearest until they hold `budget` vectors.
    pub fn groups_for(&self, q: &[f32], budget: usize) -> Vec<usize> {
        probe(&self.groups.centroids, self.dim, &self.group_vectors(), q, budget)
    }

    /// The lists a normalised query reads among the groups it read (each with its lists'
    /// centroids, `decode_row_shard`): the nearest until they hold `budget` vectors.
    pub fn lists_in<'a>(&self, groups: impl IntoIterator<Item = (usize, &'a [f32])>, q: &[f32], budget: usize) -> Vec<usize> {
        let (mut ids, mut centroids, mut counts) = (Vec::new(), Vec::new(), Vec::new());
        for (g, rows) in groups {
            let range = self.groups.lists(g);
            counts.extend_from_slice(&self.counts[range.clone()]);
            ids.extend(range);
            centroids.extend_from_slice(rows);
        }
        probe(&centroids, self.dim, &counts, q, budget).into_iter().map(|i| ids[i]).collect()
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
    use crate::encoder::{decode_row_shard, encode_row_shard};

    fn index(groups: ListGroups) -> VectorIndex {
        let files = "l-0123456789abcdef".to_string();
        VectorIndex {
            model_dim: 6,
            dim: 2,
            probe: 10,
            lists: store_refs(&files, 3),
            list_files: files,
            counts: vec![3, 4, 5],
            centroids: if groups.sizes.is_empty() { vec![1.0, 0.0, 0.0, 1.0, -1.0, 0.0] } else { Vec::new() },
            groups,
            projection: ShardRef::new("p-00000000000000aa.bin", 50, 9),
        }
    }

    fn two_groups() -> ListGroups {
        let files = "c-00000000000000ff".to_string();
        ListGroups { probe: 9, shards: store_refs(&files, 2), files, sizes: vec![2, 1], centroids: vec![1.0, 0.0, 0.0, 1.0] }
    }

    #[test]
    fn index_and_projection_round_trip() {
        let idx = index(two_groups());
        let b = idx.encode().unwrap();
        assert_eq!(VectorIndex::decode(&b, 12).unwrap(), idx);
        assert_eq!(idx.groups.lists(0), 0..2);
        assert_eq!(idx.groups.lists(1), 2..3);
        assert_eq!(idx.group_vectors(), vec![7, 5]);
        assert!(VectorIndex::decode(&b, 13).is_err(), "counts must add up");
        let flat = index(ListGroups::default());
        assert_eq!(VectorIndex::decode(&flat.encode().unwrap(), 12).unwrap(), flat);
        assert_eq!(flat.lists_without_groups(&[0.9, 0.1], 5), Some(vec![0, 1]));
        assert_eq!(idx.lists_without_groups(&[0.9, 0.1], 5), None, "grouped lists are chosen through their groups");
        assert!(VectorIndex::decode(&b[..b.len() - 2], 12).is_err());
        let p = Projection { model_dim: 3, dim: 2, basis: vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0] };
        assert_eq!(decode_projection(&encode_projection(&p), 3, 2).unwrap(), p);
        assert!(decode_projection(&encode_projection(&p), 4, 2).is_err());
        assert_eq!(p.apply_normalised(&[3.0, 4.0, 9.0]), vec![0.6, 0.8]);
    }

    #[test]
    fn groups_that_do_not_cover_the_lists_exactly_are_refused() {
        let mut short = two_groups();
        short.sizes = vec![1, 1];
        let mut empty = two_groups();
        empty.sizes = vec![3, 0];
        for bad in [short, empty] {
            let b = index(bad.clone()).encode().unwrap();
            let e = VectorIndex::decode(&b, 12).unwrap_err();
            assert!(e.message.contains("group"), "{bad:?}: {}", e.message);
        }
        let mut one = index(ListGroups { sizes: vec![1], ..two_groups() });
        one.lists.truncate(1);
        one.counts = vec![12];
        one.groups.centroids.truncate(2);
        let e = VectorIndex::decode(&one.encode().unwrap(), 12).unwrap_err();
        assert!(e.message.contains("groups its lists wrongly"), "{}", e.message);
    }

    #[test]
    fn a_list_group_round_trips_and_names_its_place() {
        let rows = [0.5, -0.5, 0.0, 1.0];
        let decode_list_group = |b: &[u8], dim, lists, place| decode_row_shard(b, dim, lists, place, "list group");
        let b = encode_row_shard(&rows, 2, 4);
        let got = decode_list_group(&b, 2, 2, 4).unwrap();
        assert!(got.iter().zip(rows).all(|(a, b)| (a - b).abs() < 0.1), "{got:?}");
        assert!(decode_list_group(&b, 2, 2, 3).unwrap_err().message.contains("another's name"));
        assert!(decode_list_group(&b, 2, 3, 4).is_err(), "wrong count");
        assert!(decode_list_group(&b[..b.len() - 1], 2, 2, 4).is_err(), "truncated");
        let mut long = b.clone();
        long.push(0);
        assert!(decode_list_group(&long, 2, 2, 4).is_err(), "trailing data");
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
