//! The manifest as JSON: each part read (checked as it is read) and written, every number
//! an integer (the BM25F parameters in thousandths).

use super::*;

fn u32_of(f: &Fields, name: &str) -> Result<u32, String> {
    Ok(f.uint(name, u64::from(u32::MAX))? as u32)
}

/// A member that is an array of exactly `N` unsigned integers up to `max`.
fn uints<const N: usize>(f: &Fields, name: &str, max: u64) -> Result<[u64; N], String> {
    let v = f.list(name, |x| json::as_u64(x).filter(|&n| n <= max).ok_or_else(|| msg!("{} must hold whole numbers", name)))?;
    v.try_into().map_err(|v: Vec<u64>| msg!("{} must hold {} numbers, not {}", name, N, v.len()))
}

fn milli(x: f32) -> u64 {
    (f64::from(x) * 1000.0).round().max(0.0) as u64
}

fn from_milli(x: u64) -> f32 {
    x as f32 / 1000.0
}

impl Bm25fParams {
    /// The parameters as the manifest stores them: thousandths.
    pub(super) fn from_json(v: &Json) -> Result<Bm25fParams, String> {
        let f = Fields::of(v, "params", None)?;
        let k1 = f.uint("k1_milli", 1_000_000)?;
        let (b, weight) = (uints::<N_FIELDS>(&f, "b_milli", 1000)?, uints::<N_FIELDS>(&f, "weight_milli", 1_000_000)?);
        Ok(Bm25fParams { k1: from_milli(k1), b: b.map(from_milli), weight: weight.map(from_milli) })
    }

    /// The parameters a bundle built with these reads back (each to the nearest thousandth).
    pub fn stored(&self) -> Bm25fParams {
        Bm25fParams {
            k1: from_milli(milli(self.k1)),
            b: self.b.map(|b| from_milli(milli(b))),
            weight: self.weight.map(|w| from_milli(milli(w))),
        }
    }
}

impl ToJson for Bm25fParams {
    fn to_json(&self) -> Json {
        Json::obj([
            ("k1_milli", Json::from(milli(self.k1))),
            ("b_milli", Json::from(self.b.map(milli).to_vec())),
            ("weight_milli", Json::from(self.weight.map(milli).to_vec())),
        ])
    }
}

impl ShardRef {
    fn from_fields(f: &Fields) -> Result<ShardRef, String> {
        Ok(ShardRef::new(f.str("file")?, f.uint("bytes", u64::MAX)?, u32_of(f, "crc32")?))
    }

    fn from_json(v: &Json) -> Result<ShardRef, String> {
        ShardRef::from_fields(&Fields::of(v, "shard", None)?)
    }

    fn members(&self) -> Vec<(&'static str, Json, bool)> {
        let mut m = vec![("file", Json::from(&self.file), true)];
        if let Some(c) = self.check {
            m.extend([("bytes", Json::from(c.bytes), true), ("crc32", Json::from(c.crc32), true)]);
        }
        m
    }
}

impl ToJson for ShardRef {
    fn to_json(&self) -> Json {
        members(self.members())
    }
}

impl KeyRangeShardRef {
    fn from_json(v: &Json) -> Result<KeyRangeShardRef, String> {
        let f = Fields::of(v, "key-range shard", None)?;
        Ok(KeyRangeShardRef { shard: ShardRef::from_fields(&f)?, first: f.str("first")?, last: Some(f.str("last")?) })
    }
}

impl ToJson for KeyRangeShardRef {
    fn to_json(&self) -> Json {
        let mut m = self.shard.members();
        m.extend([("first", Json::from(&self.first), true), ("last", Json::from(self.last.clone()), self.last.is_some())]);
        members(m)
    }
}

impl VectorsRef {
    fn from_json(v: &Json) -> Result<VectorsRef, String> {
        let f = Fields::of(v, "vectors", None)?;
        Ok(VectorsRef {
            model: f.str("model")?,
            dim: u32_of(&f, "dim")?,
            model_dim: u32_of(&f, "model_dim")?,
            chunks: u32_of(&f, "chunks")?,
            index: ShardRef::from_json(f.need("index")?)?,
        })
    }
}

impl ToJson for VectorsRef {
    fn to_json(&self) -> Json {
        Json::obj([
            ("model", Json::from(&self.model)),
            ("dim", Json::from(self.dim)),
            ("model_dim", Json::from(self.model_dim)),
            ("chunks", Json::from(self.chunks)),
            ("index", self.index.to_json()),
        ])
    }
}

impl EncoderRef {
    fn from_json(v: &Json) -> Result<EncoderRef, String> {
        let f = Fields::of(v, "encoder", None)?;
        let layout = EncoderLayout {
            dim: u32_of(&f, "dim")? as usize,
            rows_per_shard: u32_of(&f, "rows_per_shard")? as usize,
            n_rows: u32_of(&f, "tokens")? as usize,
            n_word_groups: u32_of(&f, "word_groups")? as usize,
            n_continuation_groups: u32_of(&f, "continuation_groups")? as usize,
            group_files: f.str("groups")?,
            row_files: f.str("rows")?,
        };
        Ok(EncoderRef { layout, texts: u32_of(&f, "texts")? })
    }
}

impl ToJson for EncoderRef {
    fn to_json(&self) -> Json {
        let l = &self.layout;
        Json::obj([
            ("dim", Json::from(l.dim)),
            ("rows_per_shard", Json::from(l.rows_per_shard)),
            ("word_groups", Json::from(l.n_word_groups)),
            ("continuation_groups", Json::from(l.n_continuation_groups)),
            ("groups", Json::from(&l.group_files)),
            ("rows", Json::from(&l.row_files)),
            ("tokens", Json::from(l.n_rows)),
            ("texts", Json::from(self.texts)),
        ])
    }
}

impl Manifest {
    pub(super) fn from_json(v: &Json) -> Result<Manifest, String> {
        let f = Fields::of(v, "manifest", None)?;
        let (term_files, term_shards) = key_store_from_json(f.need("term_store")?, "term store")?;
        let (vocab_files, vocabulary) = key_store_from_json(f.need("vocabulary")?, "vocabulary")?;
        let (doc_files, doc_shards, part_positions) = doc_store_from_json(f.need("doc_store")?)?;
        let startup = f.need("startup")?;
        Ok(Manifest {
            generator: f.str("generator")?,
            doc_count: u32_of(&f, "doc_count")?,
            term_count: f.uint("term_count", u64::MAX)?,
            params: Bm25fParams::from_json(f.need("params")?)?,
            field_tokens: uints(&f, "field_tokens", u64::MAX)?,
            filter_fields: f.list("filter_fields", |x| json::string_in(x, "a filter field"))?,
            startup: ShardRef::from_json(startup)?,
            doc_dictionary: matches!(startup.get("dictionary"), Some(Json::Bool(true))),
            term_files,
            term_shards,
            vocab_files,
            vocabulary,
            doc_files,
            doc_shards,
            part_positions,
            id_shards: f.list("id_shards", KeyRangeShardRef::from_json)?,
            fold_table: f.get("fold_table").map(ShardRef::from_json).transpose()?,
            vectors: f.get("vectors").map(VectorsRef::from_json).transpose()?,
            encoder: f.get("encoder").map(EncoderRef::from_json).transpose()?,
            language: f.opt_str("language")?.unwrap_or_else(|| "en".to_string()),
            stop_words: match f.get("stop_words") {
                Some(_) => f.list("stop_words", |x| json::string_in(x, "a stop word"))?,
                None => Vec::new(),
            },
            languages: match f.get("languages") {
                Some(Json::Obj(members)) => members
                    .iter()
                    .map(|(k, v)| {
                        v.as_str().map(|p| (k.clone(), p.to_string())).ok_or_else(|| "languages must map codes to folders".to_string())
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("languages must be an object".to_string()),
                None => Vec::new(),
            },
            delta: f.get("delta").map(Delta::from_json).transpose()?,
        })
    }
}

impl Delta {
    fn from_json(v: &Json) -> Result<Delta, String> {
        let f = Fields::of(v, "delta", None)?;
        let removed = f.list("removed", |x| {
            json::as_u64(x).and_then(|n| u32::try_from(n).ok()).ok_or_else(|| msg!("delta removed must be doc numbers"))
        })?;
        let bundle = match (f.opt_str("folder")?, f.get("manifest")) {
            (Some(folder), Some(m)) => Some((folder, Box::new(Manifest::of_json(m).map_err(|e| msg!("delta: {}", e.message))?))),
            (None, None) => None,
            _ => return Err("delta has a folder without a manifest or a manifest without a folder".to_string()),
        };
        Ok(Delta { bundle, removed, vectors: f.get("vectors").map(ShardRef::from_json).transpose()? })
    }
}

impl ToJson for Delta {
    fn to_json(&self) -> Json {
        let mut m = vec![("removed", Json::from(&self.removed[..]), true)];
        if let Some((folder, manifest)) = &self.bundle {
            m.extend([("folder", Json::from(folder), true), ("manifest", manifest.to_json(), true)]);
        }
        m.push(("vectors", self.vectors.to_json(), self.vectors.is_some()));
        members(m)
    }
}

impl ToJson for Manifest {
    fn to_json(&self) -> Json {
        let mut startup = self.startup.members();
        startup.push(("dictionary", Json::Bool(true), self.doc_dictionary));
        members(vec![
            ("magic", Json::from(MANIFEST_MAGIC), true),
            ("format_version", Json::from(FORMAT_VERSION), true),
            ("generator", Json::from(&self.generator), true),
            ("doc_count", Json::from(self.doc_count), true),
            ("term_count", Json::from(self.term_count), true),
            ("params", self.params.to_json(), true),
            ("field_tokens", Json::from(&self.field_tokens[..]), true),
            ("filter_fields", Json::from(&self.filter_fields[..]), true),
            ("language", Json::from(&self.language), true),
            ("stop_words", Json::from(&self.stop_words[..]), !self.stop_words.is_empty()),
            ("languages", Json::obj(self.languages.iter().map(|(k, v)| (k.as_str(), Json::from(v)))), !self.languages.is_empty()),
            ("startup", members(startup), true),
            ("term_store", key_store_to_json(&self.term_files, &self.term_shards), true),
            ("vocabulary", key_store_to_json(&self.vocab_files, &self.vocabulary), true),
            ("doc_store", doc_store_to_json(&self.doc_files, &self.doc_shards, self.part_positions), true),
            ("id_shards", self.id_shards.to_json(), !self.id_shards.is_empty()),
            ("fold_table", self.fold_table.to_json(), self.fold_table.is_some()),
            ("vectors", self.vectors.to_json(), self.vectors.is_some()),
            ("encoder", self.encoder.to_json(), self.encoder.is_some()),
            ("delta", self.delta.to_json(), self.delta.is_some()),
        ])
    }
}

/// A store of key-range shards named by rule (the term store, the vocabulary): each shard's
/// separator, a column.
fn key_store_from_json(v: &Json, what: &str) -> Result<(String, Vec<KeyRangeShardRef>), String> {
    let f = Fields::of(v, what, None)?;
    let files = f.str("files")?;
    let first = f.list("first", |x| json::string_in(x, "a store key"))?;
    let shards = first
        .into_iter()
        .enumerate()
        .map(|(n, first)| KeyRangeShardRef { shard: ShardRef { file: store_file(&files, n), check: None }, first, last: None })
        .collect();
    Ok((files, shards))
}

fn key_store_to_json(files: &str, shards: &[KeyRangeShardRef]) -> Json {
    Json::obj([("files", Json::from(files)), ("first", Json::Arr(shards.iter().map(|t| Json::from(&t.first)).collect()))])
}

/// The doc store as the manifest lists it: `docs` (documents per shard; 0 for a further
/// part of the page the entry before holds a part of), and where parts begin
/// ([`Manifest::part_positions`]).
fn doc_store_from_json(v: &Json) -> Result<(String, Vec<DocShardRef>, Option<u32>), String> {
    let f = Fields::of(v, "doc store", None)?;
    let files = f.str("files")?;
    let docs =
        f.list("docs", |x| json::as_u64(x).and_then(|n| u32::try_from(n).ok()).ok_or_else(|| msg!("doc store docs must be counts")))?;
    let window = f.opt_uint("part_positions", u64::from(u32::MAX))?.map(|p| p as u32);
    let first_pos = grid_positions(&f, &docs, window)?;
    let mut shards: Vec<DocShardRef> = Vec::with_capacity(docs.len());
    let mut next_doc = 0u32;
    for (n, (&count, &pos)) in docs.iter().zip(&first_pos).enumerate() {
        let (first_doc, count) = if count == 0 {
            match shards.last() {
                Some(DocShardRef { first_doc, first_pos: Some(_), .. }) if pos.is_some() => (*first_doc, 1),
                _ => return Err(msg!("doc store has a further part that follows no part")),
            }
        } else {
            let first = next_doc;
            next_doc = next_doc.checked_add(count).ok_or_else(|| msg!("doc count overflow"))?;
            (first, count)
        };
        shards.push(DocShardRef { shard: ShardRef { file: store_file(&files, n), check: None }, first_doc, docs: count, first_pos: pos });
    }
    Ok((files, shards, window))
}

/// Each part's first position from the grid — part `k` of a page at
/// `(k + 1)·P`, plus its listed offset (`part_offsets`: `[entry, offset]` pairs, entries
/// increasing, each a further part, `0 < |offset| < P`).
fn grid_positions(f: &Fields, docs: &[u32], window: Option<u32>) -> Result<Vec<Option<u32>>, String> {
    let offsets = f.list("part_offsets", |x| match x {
        Json::Arr(pair) if pair.len() == 2 => match (json::as_u64(&pair[0]), json::as_i64(&pair[1])) {
            (Some(n), Some(off)) => Ok((n, off)),
            _ => Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window")),
        },
        _ => Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window")),
    })?;
    if docs.first() == Some(&0) {
        return Err(msg!("doc store has a further part that follows no part"));
    }
    let grid = || window.filter(|&p| p > 0).ok_or_else(|| msg!("doc store has parts but no part_positions"));
    let mut first_pos = vec![None; docs.len()];
    let mut k = 0usize; // the part's place in its page
    for n in 0..docs.len() {
        k = if docs[n] == 0 { k + 1 } else { 0 };
        // A page's first part is the entry before a further part.
        if k > 0 || docs.get(n + 1) == Some(&0) {
            first_pos[n] = crate::partition::window_start(k, grid()?);
        }
    }
    let mut last = None;
    for (n, off) in offsets {
        let at = usize::try_from(n).ok().filter(|&n| n < docs.len() && docs[n] == 0 && last.is_none_or(|l| l < n));
        let (Some(at), Some(p)) = (at, window) else {
            return Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window"));
        };
        if off == 0 || off.unsigned_abs() >= u64::from(p) {
            return Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window"));
        }
        first_pos[at] = first_pos[at].and_then(|w| u32::try_from(i64::from(w) + off).ok());
        if first_pos[at].is_none() {
            return Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window"));
        }
        last = Some(at);
    }
    Ok(first_pos)
}

fn doc_store_to_json(files: &str, shards: &[DocShardRef], window: Option<u32>) -> Json {
    let continues = |i: usize| i > 0 && shards[i].continues(&shards[i - 1]);
    let docs = (0..shards.len()).map(|i| Json::from(if continues(i) { 0 } else { shards[i].docs })).collect();
    let mut store = Json::obj([("files", Json::from(files)), ("docs", Json::Arr(docs))]);
    if let Some(p) = window {
        // Each further part's offset from its window (the builder lays parts out so that
        // few have one).
        let mut offsets = Vec::new();
        let mut k = 0usize;
        for i in 0..shards.len() {
            k = if continues(i) { k + 1 } else { 0 };
            let (Some(first), Some(w)) = (shards[i].first_pos, crate::partition::window_start(k, p)) else { continue };
            if k > 0 && first != w {
                offsets.push(Json::Arr(vec![Json::from(i), Json::from(i64::from(first) - i64::from(w))]));
            }
        }
        store.set("part_positions", Json::from(p));
        if !offsets.is_empty() {
            store.set("part_offsets", Json::Arr(offsets));
        }
    }
    store
}
