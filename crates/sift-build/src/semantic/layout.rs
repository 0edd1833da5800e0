//! Laying out a bundle's semantic half at build time: the projection into the bundle's
//! space, the chunk vectors partitioned into lists, and the fitted query encoder — as
//! payloads the builder frames into shards.

use super::encoder::{fit_encoder, lay_out_encoder, EncoderInput, EncoderLayout};
use super::ivf::kmeans;
use super::linalg::par_fill_rows;
use sift_base::error::SiftError;
use sift_format::encoder::encode_row_shard;
use sift_format::vectors::VectorSet;
use sift_format::vindex::encode_projection;

/// Dimensions of the bundle's space by default: vectors three times smaller than the
/// model's 384, for nearly the same relevance.
pub const DEFAULT_DIM: usize = 128;
/// Up to this many chunks, one list: every query reads all vectors, and search is exact.
pub const FLAT_MAX_CHUNKS: usize = 2048;
/// Chunks per list when the set is partitioned.
pub const LIST_CHUNKS: usize = 64;
/// Vectors a query reads by default in a partitioned set: the nearest lists until this
/// many (more read no better on the known-item sets, for more bytes).
pub const DEFAULT_PROBE: usize = 256;
/// From this many lists on, lists are found through groups of lists (`vindex`): below, the
/// index holds every list's centroid (under 40 kB), and groups chose lists less well on
/// the Python docs' 229 (paraphrase MRR 0.824 → 0.800) for a round of fetches more.
pub const GROUP_FROM_LISTS: usize = 1024;
/// Lists fall into this many times √lists groups (k-means over their centroids), so the
/// index's group centroids and the groups a query reads weigh about the same.
pub const GROUPS_PER_ROOT_LISTS: f64 = 2.0;
/// Groups a query reads, about (the nearest until they hold this many groups' vectors):
/// a query's nearest lists need not share its nearest group; with 8 of rust-doc's 83 the
/// lists chosen rank as well as choosing among all lists (4 lost a tenth of the
/// paraphrases' MRR; bench/results).
pub const GROUPS_READ: usize = 8;

/// What the host embedded for the semantic half of a bundle.
#[derive(Debug, Clone, Default)]
pub struct SemanticInput {
    /// The model's name (`all-MiniLM-L6-v2`).
    pub model: String,
    /// Its vectors' dimensions.
    pub model_dim: usize,
    /// `per_doc[d][c]`: the model's embedding of chunk `c` of document `d`
    /// (`chunk::chunks_of` order), L2-normalised; empty where the model did not read the
    /// chunk (`DocVectors::Fitted` only: otherwise the model read every chunk).
    pub per_doc: Vec<Vec<Vec<f32>>>,
    /// Where the chunks' vectors in the bundle come from.
    pub doc_vectors: DocVectors,
    /// Dimensions of the bundle's space (`DEFAULT_DIM`).
    pub dim: usize,
    /// Force this many lists (None: one list up to `FLAT_MAX_CHUNKS`, else lists of about
    /// `LIST_CHUNKS`).
    pub lists: Option<usize>,
    /// Vectors a query reads (`DEFAULT_PROBE`).
    pub probe: usize,
    /// Lists from which they are grouped (`GROUP_FROM_LISTS`).
    pub group_from_lists: usize,
    /// The static encoder's training data (None: no encoder; hosts embed queries themselves).
    pub encoder: Option<EncoderInput>,
}

/// Where the bundle's chunk vectors come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DocVectors {
    /// The model's embedding of every chunk: a site within the model's budget, or one whose
    /// chunks fit in it (the model reads them first, then the titles, headings and
    /// sentences that fit: `embed::Layout::model_budget`).
    #[default]
    Model,
    /// The static encoder's: fitted to what the model read (a sample of the site's texts,
    /// `embed::Layout::model_budget`), applied to every chunk as the engine applies it to
    /// a query. The model's own vectors of the sampled chunks are not used: beside the
    /// encoder's they rank apart (bench/results/2026-12-06-meaning-at-keyword-cost-first-measures.md).
    Fitted,
}

/// The semantic half as payloads (those of stores named by rule naming their place).
pub(crate) struct SemanticLayout {
    pub model_dim: usize,
    pub dim: usize,
    pub chunks: usize,
    pub probe: usize,
    pub lists: Vec<Vec<u8>>,
    pub counts: Vec<u32>,
    /// Without groups, the lists' centroids (none with one list).
    pub centroids: Vec<f32>,
    /// Lists per group (in list order), the groups' centroids, and the vectors a query's
    /// groups hold (`ListGroups::probe`); none with few lists.
    pub group_sizes: Vec<u32>,
    pub group_centroids: Vec<f32>,
    pub group_probe: usize,
    /// Each group's payload: its lists' centroids.
    pub groups: Vec<Vec<u8>>,
    pub projection: Vec<u8>,
    pub encoder: Option<EncoderLayout>,
}

/// Stage times on stderr when `SIFT_TIMINGS` is set (native builds; the core has no clock
/// in wasm, where this is never called).
struct Clock(Option<std::time::Instant>);

impl Clock {
    fn start() -> Clock {
        #[cfg(not(target_family = "wasm"))]
        if std::env::var_os("SIFT_TIMINGS").is_some() {
            return Clock(Some(std::time::Instant::now()));
        }
        Clock(None)
    }
    fn lap(&self, what: &str) {
        if let Some(t) = self.0 {
            eprintln!("timing: {what} done at {:.2}s", t.elapsed().as_secs_f64());
        }
    }
}

/// Lay out the semantic half; its input is freed once every chunk's vector is made (a big
/// site's chunk token ids weigh more than the lists k-means makes next).
pub(crate) fn lay_out(input: SemanticInput, n_docs: usize) -> Result<SemanticLayout, SiftError> {
    let (lists, probe, group_from_lists) = (input.lists, input.probe, input.group_from_lists);
    let clock = Clock::start();
    let Vectors { model_dim, dim, chunk_docs, projected, projection, encoder } = chunk_vectors(&input, n_docs, &clock)?;
    drop(input);
    let n_chunks = chunk_docs.len();
    let n_lists = lists.unwrap_or(if n_chunks <= FLAT_MAX_CHUNKS { 1 } else { n_chunks.div_ceil(LIST_CHUNKS) }).clamp(1, n_chunks);
    let (centroids, assign) = if n_lists == 1 { (Vec::new(), vec![0u32; n_chunks]) } else { kmeans(&projected, dim, n_lists) };
    clock.lap("kmeans");
    let groups = group_lists(&centroids, dim, n_lists, group_from_lists);
    clock.lap("lists");
    // Lists are numbered group by group, so a group is a run of list numbers.
    let mut sets: Vec<VectorSet> = (0..n_lists).map(|_| VectorSet::new(dim)).collect();
    for (i, doc) in chunk_docs.iter().enumerate() {
        sets[groups.number[assign[i] as usize]].push(*doc, &projected[i * dim..(i + 1) * dim])?;
    }
    // A list k-means left empty keeps its centroid (it is never the only nearest) but has
    // no vectors: it is still written, so list numbers stay dense.
    let counts: Vec<u32> = sets.iter().map(|s| s.len() as u32).collect();
    let lists = sets.iter().enumerate().map(|(i, s)| s.encode(i)).collect();
    let group_vectors: usize = n_chunks.div_ceil(groups.members.len().max(1));
    let group_payloads = groups
        .members
        .iter()
        .enumerate()
        .map(|(g, members)| {
            let rows: Vec<f32> = members.iter().flat_map(|&l| centroids[l * dim..(l + 1) * dim].iter().copied()).collect();
            encode_row_shard(&rows, dim, g)
        })
        .collect();
    Ok(SemanticLayout {
        model_dim,
        dim,
        chunks: n_chunks,
        probe,
        lists,
        counts,
        centroids: if groups.members.is_empty() { centroids } else { Vec::new() },
        group_sizes: groups.members.iter().map(|m| m.len() as u32).collect(),
        group_centroids: groups.centroids,
        group_probe: (GROUPS_READ * group_vectors).max(probe),
        groups: group_payloads,
        projection,
        encoder,
    })
}

/// Every chunk's vector in the bundle's space, and what was fitted to make them.
struct Vectors {
    model_dim: usize,
    dim: usize,
    /// Each chunk's document.
    chunk_docs: Vec<u32>,
    /// `chunks × dim`.
    projected: Vec<f32>,
    projection: Vec<u8>,
    encoder: Option<EncoderLayout>,
}

fn chunk_vectors(input: &SemanticInput, n_docs: usize, clock: &Clock) -> Result<Vectors, SiftError> {
    if input.per_doc.len() != n_docs {
        return Err(SiftError::invalid(format!("{n_docs} documents but vectors for {}", input.per_doc.len())));
    }
    let model_dim = input.model_dim;
    let fitted = input.doc_vectors == DocVectors::Fitted;
    if fitted && input.encoder.is_none() {
        return Err(SiftError::invalid("chunk vectors from the static encoder need the encoder's training data"));
    }
    // Each chunk's document, and the model's vector of it if the model read it.
    let (mut chunk_docs, mut vectors): (Vec<u32>, Vec<Option<&[f32]>>) = (Vec::new(), Vec::new());
    for (d, per_chunk) in input.per_doc.iter().enumerate() {
        for v in per_chunk {
            let read = !(v.is_empty() && fitted);
            if read && (v.len() != model_dim || v.iter().any(|x| !x.is_finite())) {
                return Err(SiftError::invalid(format!("a chunk vector of document {d} is not {model_dim} finite numbers")));
            }
            chunk_docs.push(d as u32);
            vectors.push(read.then_some(v.as_slice()));
        }
    }
    if chunk_docs.is_empty() {
        return Err(SiftError::invalid("no chunk vectors to index"));
    }
    let n_chunks = chunk_docs.len();
    let embedded: Vec<&[f32]> = vectors.iter().flatten().copied().collect();
    if embedded.is_empty() {
        return Err(SiftError::invalid("the model read none of the chunks: the bundle's space cannot be fitted"));
    }
    let dim = input.dim.clamp(1, model_dim);
    let projection = super::projection::fit(&embedded, model_dim, dim);
    clock.lap("projection");
    let encoder = match &input.encoder {
        Some(e) => Some((e, fit_encoder(e, &vectors, &projection)?)),
        None => None,
    };
    clock.lap("encoder fit");
    // Written in place, row by row: a big site's vectors, collected a row at a time and
    // joined, would be held twice.
    let mut projected = vec![0f32; n_chunks * dim];
    match &encoder {
        Some((e, encoder)) if fitted => {
            let encode = encoder.encoder();
            par_fill_rows(&mut projected, dim, |i, row| row.copy_from_slice(&encode(&e.chunk_tokens.get(i))));
        }
        // The model's vector of every chunk (each was checked above).
        _ => par_fill_rows(&mut projected, dim, |i, row| {
            if let Some(v) = vectors[i] {
                row.copy_from_slice(&projection.apply_normalised(v));
            }
        }),
    }
    clock.lap("chunk vectors");
    let encoder = match encoder {
        Some((e, fitted)) => Some(lay_out_encoder(e, fitted)?),
        None => None,
    };
    clock.lap("encoder layout");
    Ok(Vectors { model_dim, dim, chunk_docs, projected, projection: encode_projection(&projection), encoder })
}

/// Lists gathered into groups of lists near each other.
struct Groups {
    /// Each group's lists (k-means' numbers), in order.
    members: Vec<Vec<usize>>,
    /// A list's number in the bundle: its place when lists are laid out group by group.
    number: Vec<usize>,
    /// `groups × dim`: the normalised mean of each group's list centroids.
    centroids: Vec<f32>,
}

/// `GROUPS_PER_ROOT_LISTS` × √lists groups by k-means over the lists' centroids (none
/// below `from_lists` lists, or with one).
fn group_lists(centroids: &[f32], dim: usize, n_lists: usize, from_lists: usize) -> Groups {
    if n_lists == 1 || n_lists < from_lists {
        return Groups { members: Vec::new(), number: (0..n_lists).collect(), centroids: Vec::new() };
    }
    let n_groups = (GROUPS_PER_ROOT_LISTS * (n_lists as f64).sqrt()).round().clamp(1.0, n_lists as f64) as usize;
    let (group_centroids, assign) = kmeans(centroids, dim, n_groups);
    let mut members = vec![Vec::new(); n_groups];
    for (l, &g) in assign.iter().enumerate() {
        members[g as usize].push(l);
    }
    // k-means may leave a group empty: it goes, with its centroid.
    let kept: Vec<usize> = (0..n_groups).filter(|&g| !members[g].is_empty()).collect();
    let centroids = kept.iter().flat_map(|&g| group_centroids[g * dim..(g + 1) * dim].iter().copied()).collect();
    let members: Vec<Vec<usize>> = kept.into_iter().map(|g| std::mem::take(&mut members[g])).collect();
    let mut number = vec![0; n_lists];
    for (k, &l) in members.iter().flatten().enumerate() {
        number[l] = k;
    }
    Groups { members, number, centroids }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sift_format::encoder::decode_row_shard;
    use sift_format::table::store_refs;
    use sift_format::vindex::{normalise, probe, ListGroups, VectorIndex};
    use sift_format::ShardRef;

    /// Unit vectors around 50 topics, a document of 4 chunks each.
    fn topics(docs: usize, dim: usize) -> Vec<Vec<Vec<f32>>> {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut unit = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f32 / (1u64 << 53) as f32 - 0.5
        };
        let centres: Vec<Vec<f32>> = (0..50).map(|_| (0..dim).map(|_| unit()).collect()).collect();
        (0..docs)
            .map(|d| {
                (0..4)
                    .map(|_| {
                        let mut v: Vec<f32> = centres[d % 50].iter().map(|c| c + 0.3 * unit()).collect();
                        normalise(&mut v);
                        v
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_nearest_groups_hold_the_lists_a_query_would_read_among_all() {
        let dim = 16;
        let per_doc = topics(1500, dim);
        let input = SemanticInput {
            doc_vectors: DocVectors::Model,
            model: "toy".into(),
            model_dim: dim,
            per_doc: per_doc.clone(),
            dim,
            lists: None,
            probe: 256,
            group_from_lists: 2,
            encoder: None,
        };
        let laid = lay_out(input.clone(), per_doc.len()).unwrap();
        let n_lists = laid.counts.len();
        assert_eq!(n_lists, 6000usize.div_ceil(LIST_CHUNKS));
        assert_eq!(laid.group_sizes.len(), laid.groups.len());
        assert!((15..=20).contains(&laid.groups.len()), "2√{n_lists} groups: {}", laid.groups.len());
        assert_eq!(laid.group_sizes.iter().sum::<u32>() as usize, n_lists, "every list in one group");
        let list_centroids: Vec<Vec<f32>> = laid
            .groups
            .iter()
            .zip(&laid.group_sizes)
            .enumerate()
            .map(|(g, (p, &n))| decode_row_shard(p, dim, n as usize, g, "list group").unwrap())
            .collect();
        let files = "c-0000000000000000".to_string();
        let ix = VectorIndex {
            model_dim: dim,
            dim,
            probe: 256,
            lists: store_refs("l-0000000000000000", n_lists),
            list_files: "l-0000000000000000".into(),
            counts: laid.counts.clone(),
            centroids: Vec::new(),
            groups: ListGroups {
                probe: laid.group_probe as u32,
                shards: store_refs(&files, laid.groups.len()),
                files,
                sizes: laid.group_sizes.clone(),
                centroids: laid.group_centroids.clone(),
            },
            projection: ShardRef::new("p-0000000000000000.bin", 1, 1),
        };
        let all = list_centroids.concat();
        let (mut same, mut found, mut wanted) = (0, 0, 0);
        let queries: Vec<&Vec<f32>> = per_doc.iter().step_by(7).map(|d| &d[1]).collect();
        for q in &queries {
            let q = input_projected(q, &laid);
            let groups = ix.groups_for(&q, ix.groups.probe as usize);
            assert!(groups.len() < laid.groups.len(), "a query reads some groups, not all");
            let mut two_level = ix.lists_in(groups.iter().map(|&g| (g, list_centroids[g].as_slice())), &q, 256);
            let mut flat = probe(&all, dim, &laid.counts, &q, 256);
            assert!(two_level.contains(&flat[0]), "the nearest list is always read");
            two_level.sort();
            flat.sort();
            same += usize::from(two_level == flat);
            found += flat.iter().filter(|l| two_level.contains(l)).count();
            wanted += flat.len();
        }
        // Random topics have no neighbourhoods, so the farther lists a flat probe reads are
        // anywhere; a real site's are more alike (bench/results).
        assert!(
            found * 100 >= wanted * 93,
            "{found} of the {wanted} lists a flat probe reads ({same} of {} queries read the same)",
            queries.len()
        );
    }

    #[test]
    fn fitted_chunk_vectors_need_the_encoder_and_a_chunk_the_model_read() {
        let dim = 16;
        let mut input = SemanticInput {
            doc_vectors: DocVectors::Fitted,
            model: "toy".into(),
            model_dim: dim,
            per_doc: topics(10, dim),
            dim,
            lists: None,
            probe: 256,
            group_from_lists: 2,
            encoder: None,
        };
        let err = lay_out(input.clone(), 10).err().expect("refused");
        assert!(err.message.contains("need the encoder"), "{}", err.message);
        input.encoder = Some(EncoderInput::default());
        input.per_doc.iter_mut().flatten().for_each(Vec::clear);
        let err = lay_out(input.clone(), 10).err().expect("refused");
        assert!(err.message.contains("the model read none of the chunks"), "{}", err.message);
        // With the model's vectors, a chunk without one is refused as before.
        input.doc_vectors = DocVectors::Model;
        let err = lay_out(input.clone(), 10).err().expect("refused");
        assert!(err.message.contains("is not 16 finite numbers"), "{}", err.message);
    }

    #[test]
    fn below_the_grouping_threshold_the_index_holds_every_lists_centroid() {
        let dim = 16;
        let per_doc = topics(600, dim);
        let mut input = SemanticInput {
            doc_vectors: DocVectors::Model,
            model: "toy".into(),
            model_dim: dim,
            per_doc,
            dim,
            lists: None,
            probe: 64,
            group_from_lists: 100,
            encoder: None,
        };
        let flat = lay_out(input.clone(), 600).unwrap();
        assert_eq!(flat.counts.len(), 38);
        assert_eq!(flat.centroids.len(), 38 * dim, "every list's centroid, in the index");
        assert!(flat.groups.is_empty() && flat.group_sizes.is_empty() && flat.group_centroids.is_empty());
        input.group_from_lists = 38;
        let grouped = lay_out(input.clone(), 600).unwrap();
        assert!(grouped.centroids.is_empty() && !grouped.groups.is_empty(), "at the threshold, groups");
    }

    /// `v` in the layout's space (dim = model_dim here, so the projection is a rotation).
    fn input_projected(v: &[f32], laid: &SemanticLayout) -> Vec<f32> {
        let p = sift_format::vindex::decode_projection(&laid.projection, laid.model_dim, laid.dim).unwrap();
        p.apply_normalised(v)
    }
}
