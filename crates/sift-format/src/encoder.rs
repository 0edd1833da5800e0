//! The static query encoder (see `semantic`): the bundle's WordPiece vocabulary and one
//! weighted row per token, in the bundle's vector space. A query reads the index, then
//! the vocabulary groups its words can be cut from, then the row shards of the tokens it
//! found — never the whole vocabulary.
//!
//! The index is the manifest's (`encoder: {tokens, texts, dim, rows_per_shard,
//! word_groups, continuation_groups, groups, rows}`, [`EncoderLayout`]; `groups` and `rows`
//! are the stems of the two stores, named by rule, see `table`), so a semantic query reads
//! no index shard. The first `word_groups` groups hold word-initial tokens, the next
//! `continuation_groups` the `##` continuations; row r lives in row shard r / rows_per_shard.
//!
//! A word-initial token lives in group `fnv(first ≤ 3 characters) mod word_groups`: every
//! first piece of three characters or more that a word can start with shares the word's
//! first three, so a word needs one group to find its first piece — unless it starts with
//! a piece of one or two characters only (few words do), whose groups are then read too.
//! (Two characters made groups of common pairs, `st` or `co`, many kilobytes.)
//!
//! A continuation `##rest` lives in group `word_groups + fnv(rest's first character) mod
//! continuation_groups`: every piece that may continue a word at one place starts with the
//! same character, so each continuation needs one group — a query reads the few its words
//! need, not every continuation the site has.
//!
//! Vocabulary group payload (kind 12): an fst from token string to row number; and, in a
//! word group, from `\0` + a word the corpus uses that WordPiece cuts into two or three
//! pieces to those pieces' rows ([`pack_pieces`]: row + 1 in 21 bits each, the first piece
//! lowest), stored in the word's own group. The engine looks a whole word up before cutting
//! it, so such a word needs no continuation group: each of those is a round of fetches
//! more, on the site's own words (`vec`, `##tor`; `phantom`, `##da`, `##ta`). The pieces are
//! the ones cutting the word over this vocabulary gives (the builder cuts it with the same
//! code), so the query's vector is the same either way.
//!
//! Row shard payload (kind 11): `varint dim`, `varint n`, then per row an f32 scale (LE)
//! and ⌈dim/2⌉ bytes of 4-bit values (−7..7 stored as v + 8, low nibble first): four bits
//! lose nothing measurable against int8 and halve the encoder.
//!
//! Both payloads start with `varint n`, the shard's place in its store. The vector index's
//! list groups are row shards too ([`encode_row_shard`]).

use super::manifest::ShardRef;
use super::table::{put_place, store_refs, strip_place};
use super::terms::{build_fst, open_fst};
use sift_base::error::SiftError;
use sift_base::varint::{self, Reader};

/// Rows per row shard (16 rows of 128 int4 dimensions, about 1 kB): a query reads one row
/// shard per token it has, since rows lie in vocabulary order, not by query; smaller
/// shards read fewer bytes for more files (bench/results/decisions.md).
pub const ROWS_PER_SHARD: usize = 16;
/// Tokens per vocabulary group, on average, for word groups and continuation groups alike
/// (a common prefix keeps its group larger; continuation groups only part characters, so a
/// large vocabulary has some that hold none, and cost nothing).
pub const TOKENS_PER_GROUP: usize = 64;
/// At most this many rows (the model's whole vocabulary is 30,522).
pub const MAX_ROWS: usize = 1 << 20;
/// A whole word is stored with at most this many pieces (more do not fit one fst value).
pub const WHOLE_WORD_MAX_PIECES: usize = 3;
const PIECE_BITS: u32 = 21;
const MAX_GROUPS: usize = 1 << 14;

/// The vocabulary group of a token: a word group, or after them a continuation group.
pub fn group_of(token: &str, n_word_groups: usize, n_continuation_groups: usize) -> usize {
    match token.strip_prefix("##") {
        Some(rest) => n_word_groups + continuation_group(rest, n_continuation_groups),
        None => word_group(token, n_word_groups),
    }
}

/// Among the continuation groups, the one of a continuation `##rest`: by `rest`'s first
/// character.
fn continuation_group(rest: &str, n_continuation_groups: usize) -> usize {
    fnv_mod(&rest[..rest.chars().next().map_or(0, char::len_utf8)], n_continuation_groups)
}

/// Characters of a word-initial token that choose its group.
pub const WORD_KEY_CHARS: usize = 3;

/// The group of word-initial tokens that start with `token`'s first ≤ 3 characters.
pub fn word_group(token: &str, n_word_groups: usize) -> usize {
    let end = token.char_indices().nth(WORD_KEY_CHARS).map_or(token.len(), |(i, _)| i);
    fnv_mod(&token[..end], n_word_groups)
}

fn fnv_mod(key: &str, n: usize) -> usize {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    (h % n.max(1) as u64) as usize
}

/// The encoder's index as the manifest gives it, its stores named by rule.
#[derive(Debug, Clone, PartialEq)]
pub struct EncoderLayout {
    pub dim: usize,
    pub rows_per_shard: usize,
    pub n_rows: usize,
    pub n_word_groups: usize,
    pub n_continuation_groups: usize,
    /// The stems of the vocabulary groups' and the row shards' names (`g-<hash>`, `e-<hash>`).
    pub group_files: String,
    pub row_files: String,
}

impl EncoderLayout {
    /// `Err` when the sizes are implausible.
    pub fn check(&self) -> Result<(), SiftError> {
        check_sizes(self.dim, self.rows_per_shard, self.n_rows, [self.n_word_groups, self.n_continuation_groups])
    }

    /// Vocabulary groups and row shards (once [`EncoderLayout::check`] has passed).
    pub fn shard_counts(&self) -> (usize, usize) {
        (self.n_word_groups + self.n_continuation_groups, self.n_rows.div_ceil(self.rows_per_shard.max(1)))
    }

    /// The index it describes; `Err` when it is implausible.
    pub fn index(&self) -> Result<EncoderIndex, SiftError> {
        self.check()?;
        let (groups, row_shards) = self.shard_counts();
        Ok(EncoderIndex {
            dim: self.dim,
            rows_per_shard: self.rows_per_shard,
            n_rows: self.n_rows,
            n_word_groups: self.n_word_groups,
            n_continuation_groups: self.n_continuation_groups,
            groups: store_refs(&self.group_files, groups),
            row_shards: store_refs(&self.row_files, row_shards),
        })
    }
}

fn check_sizes(dim: usize, rows_per_shard: usize, n_rows: usize, groups: [usize; 2]) -> Result<(), SiftError> {
    if dim == 0
        || dim > 4096
        || rows_per_shard == 0
        || rows_per_shard > MAX_ROWS
        || n_rows > MAX_ROWS
        || groups.iter().any(|&n| n == 0 || n >= MAX_GROUPS)
    {
        return Err(SiftError::corrupt("encoder index header is implausible"));
    }
    Ok(())
}

/// The number of groups for this many word-initial tokens, or this many continuations.
pub fn groups_for(tokens: usize) -> usize {
    tokens.div_ceil(TOKENS_PER_GROUP).clamp(1, MAX_GROUPS - 1)
}

#[derive(Debug, Clone, PartialEq)]
pub struct EncoderIndex {
    pub dim: usize,
    pub rows_per_shard: usize,
    pub n_rows: usize,
    pub n_word_groups: usize,
    pub n_continuation_groups: usize,
    /// `n_word_groups + n_continuation_groups` vocabulary groups.
    pub groups: Vec<ShardRef>,
    pub row_shards: Vec<ShardRef>,
}

impl EncoderIndex {
    /// The vocabulary group that holds `token` if the bundle has it.
    pub fn group_of(&self, token: &str) -> usize {
        group_of(token, self.n_word_groups, self.n_continuation_groups)
    }

    /// The group of the continuation `##rest`, without writing it out.
    pub fn continuation_group_of(&self, rest: &str) -> usize {
        self.n_word_groups + continuation_group(rest, self.n_continuation_groups)
    }

    /// The row shard holding `row`, and the row's place in it.
    pub fn locate(&self, row: u32) -> (usize, usize) {
        let r = row as usize;
        (r / self.rows_per_shard, r % self.rows_per_shard)
    }

    /// Rows in row shard `i`.
    pub fn rows_in(&self, i: usize) -> usize {
        self.rows_per_shard.min(self.n_rows.saturating_sub(i * self.rows_per_shard))
    }
}

/// A whole word's pieces as one fst value: row + 1 in [`PIECE_BITS`] bits each, the first
/// piece lowest. None for fewer than two pieces or more than [`WHOLE_WORD_MAX_PIECES`].
pub fn pack_pieces(rows: &[u32]) -> Option<u64> {
    if !(2..=WHOLE_WORD_MAX_PIECES).contains(&rows.len()) || rows.iter().any(|&r| r as usize >= MAX_ROWS) {
        return None;
    }
    Some(rows.iter().rev().fold(0u64, |v, &r| (v << PIECE_BITS) | (u64::from(r) + 1)))
}

/// [`pack_pieces`]'s rows, appended to `out`; false (nothing appended) when `value` is not
/// two or three rows below `n_rows`.
fn unpack_pieces(mut value: u64, n_rows: usize, out: &mut Vec<u32>) -> bool {
    let start = out.len();
    while value != 0 {
        let r = (value & ((1 << PIECE_BITS) - 1)) as usize;
        if r == 0 || r > n_rows || out.len() - start == WHOLE_WORD_MAX_PIECES {
            out.truncate(start);
            return false;
        }
        out.push((r - 1) as u32);
        value >>= PIECE_BITS;
    }
    if out.len() - start < 2 {
        out.truncate(start);
        return false;
    }
    true
}

/// The vocabulary groups of `tokens` (`tokens[r]` is row r's token) and of `words` (whole
/// words and their pieces' rows, [`pack_pieces`]): each group's payload, after its place.
pub fn encode_groups(
    tokens: &[&str],
    words: &[(String, Vec<u32>)],
    n_word_groups: usize,
    n_continuation_groups: usize,
) -> Result<Vec<Vec<u8>>, SiftError> {
    let keys: Vec<String> = words.iter().map(|(w, _)| format!("\0{w}")).collect();
    let mut groups: Vec<Vec<(&str, u64)>> = vec![Vec::new(); n_word_groups + n_continuation_groups];
    for (r, t) in tokens.iter().enumerate() {
        groups[group_of(t, n_word_groups, n_continuation_groups)].push((t, r as u64));
    }
    for ((w, rows), key) in words.iter().zip(&keys) {
        if w.is_empty() || w.starts_with("##") || rows.iter().any(|&r| r as usize >= tokens.len()) {
            return Err(SiftError::internal(format!("whole word {w:?} is not a word of this vocabulary's rows")));
        }
        let value = pack_pieces(rows).ok_or_else(|| SiftError::internal(format!("whole word {w:?} has {} pieces", rows.len())))?;
        groups[word_group(w, n_word_groups)].push((key, value));
    }
    groups
        .into_iter()
        .enumerate()
        .map(|(place, mut g)| {
            g.sort_unstable();
            if g.windows(2).any(|w| w[0].0 == w[1].0) {
                return Err(SiftError::internal("the encoder's tokens are not distinct"));
            }
            Ok(put_place(place, &build_fst(g)?))
        })
        .collect()
}

/// A vocabulary group: token → row number.
pub struct VocabGroup {
    map: fst::Map<Vec<u8>>,
    n_rows: usize,
}

impl VocabGroup {
    /// Group `place` of its store, which the payload must name first.
    pub fn decode(mut payload: Vec<u8>, n_rows: usize, place: usize) -> Result<VocabGroup, SiftError> {
        let at = strip_place(&payload, place, "encoder vocabulary group")?;
        payload.drain(..at);
        let map = open_fst(payload, "encoder vocabulary")?;
        let mut s = map.stream();
        let mut pieces = Vec::new();
        while let Some((key, value)) = fst::Streamer::next(&mut s) {
            let whole = key.first() == Some(&0);
            pieces.clear();
            if (!whole && value >= n_rows as u64) || (whole && !unpack_pieces(value, n_rows, &mut pieces)) {
                return Err(SiftError::corrupt("encoder vocabulary names a row out of range"));
            }
        }
        Ok(VocabGroup { map, n_rows })
    }

    pub fn row(&self, token: &str) -> Option<u32> {
        self.map.get(token.as_bytes()).map(|r| r as u32)
    }

    /// A whole word's pieces' rows, appended to `out`, if the group stores the word whole.
    pub fn whole_word(&self, word: &str, out: &mut Vec<u32>) -> bool {
        let mut key = Vec::with_capacity(word.len() + 1);
        key.push(0);
        key.extend_from_slice(word.as_bytes());
        self.map.get(&key).is_some_and(|v| unpack_pieces(v, self.n_rows, out))
    }
}

/// One row as an f32 scale (LE) and ⌈dim/2⌉ bytes of 4-bit values (−7..7 stored as v + 8,
/// low nibble first): the layout of encoder rows and of the vector index's centroids.
pub(crate) fn put_int4_row(out: &mut Vec<u8>, row: &[f32]) {
    let amax = row.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if amax > 0.0 { amax / 7.0 } else { 1.0 };
    out.extend_from_slice(&scale.to_le_bytes());
    let q = |x: f32| ((x / scale).round().clamp(-7.0, 7.0) as i8 + 8) as u8;
    for pair in row.chunks(2) {
        out.push(q(pair[0]) | (pair.get(1).map_or(8, |&x| q(x)) << 4));
    }
}

/// Read one [`put_int4_row`] row of `dim` values, dequantised, onto `out`.
pub(crate) fn read_int4_row(r: &mut Reader, dim: usize, out: &mut Vec<f32>) -> Result<(), SiftError> {
    let s = r.bytes(4)?;
    let scale = f32::from_le_bytes([s[0], s[1], s[2], s[3]]);
    if !scale.is_finite() {
        return Err(SiftError::corrupt("a quantised row has an invalid scale"));
    }
    let packed = r.bytes(dim.div_ceil(2))?;
    out.extend((0..dim).map(|i| f32::from(((packed[i / 2] >> (4 * (i % 2))) & 0x0f) as i8 - 8) * scale));
    Ok(())
}

/// A shard of int4 rows, `place` in its store: `varint place`, `varint dim`, `varint n`,
/// then n [`put_int4_row`] rows. The layout of encoder row shards and of the vector
/// index's list groups.
pub fn encode_row_shard(rows: &[f32], dim: usize, place: usize) -> Vec<u8> {
    let n = rows.len() / dim;
    let mut out = Vec::with_capacity(n * (4 + dim.div_ceil(2)) + 12);
    varint::put(&mut out, place as u64);
    varint::put(&mut out, dim as u64);
    varint::put(&mut out, n as u64);
    for row in rows.chunks_exact(dim) {
        put_int4_row(&mut out, row);
    }
    out
}

/// [`encode_row_shard`]'s rows, dequantised (`n × dim`), from shard `place`, which the
/// payload must name first, holding `expected_rows` rows; `what` names it in errors.
pub fn decode_row_shard(payload: &[u8], dim: usize, expected_rows: usize, place: usize, what: &str) -> Result<Vec<f32>, SiftError> {
    let mut r = Reader::at(payload, strip_place(payload, place, what)?);
    if r.u32()? as usize != dim {
        return Err(SiftError::corrupt(msg!("{} has the wrong dimension", what)));
    }
    let n = r.u32()? as usize;
    if n != expected_rows {
        return Err(SiftError::corrupt(msg!("{} holds the wrong number of rows", what)));
    }
    let mut rows = Vec::with_capacity(n * dim);
    for _ in 0..n {
        read_int4_row(&mut r, dim, &mut rows)?;
    }
    if !r.is_empty() {
        return Err(SiftError::corrupt(msg!("{} has trailing data", what)));
    }
    Ok(rows)
}

/// A row shard, dequantised.
pub struct EncoderRows {
    pub dim: usize,
    pub rows: Vec<f32>,
}

impl EncoderRows {
    /// Row shard `place` of its store.
    pub fn encode(rows: &[f32], dim: usize, place: usize) -> Vec<u8> {
        encode_row_shard(rows, dim, place)
    }

    /// Row shard `place` of its store, which the payload must name first.
    pub fn decode(payload: &[u8], dim: usize, expected_rows: usize, place: usize) -> Result<EncoderRows, SiftError> {
        Ok(EncoderRows { dim, rows: decode_row_shard(payload, dim, expected_rows, place, "encoder row shard")? })
    }

    pub fn row(&self, i: usize) -> &[f32] {
        &self.rows[i * self.dim..(i + 1) * self.dim]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_layout_and_rows_round_trip() {
        let tokens = ["the", "##s", "cache", "memo", "c", "ca", "##ity", "##i", "##ing"];
        let g = encode_groups(&tokens, &[], 2, 3).unwrap();
        assert_eq!(g.len(), 5);
        let groups: Vec<VocabGroup> = g.iter().enumerate().map(|(i, p)| VocabGroup::decode(p.clone(), tokens.len(), i).unwrap()).collect();
        for (r, t) in tokens.iter().enumerate() {
            assert_eq!(groups[group_of(t, 2, 3)].row(t), Some(r as u32), "{t}");
        }
        // Every first piece of a word is in its first-three-characters group or is one of
        // its shorter prefixes; every continuation at one place in its first character's.
        assert_eq!(word_group("cache", 2), word_group("cac", 2));
        assert_eq!(word_group("ca", 2), fnv_mod("ca", 2));
        assert_eq!(group_of("##ity", 2, 3), group_of("##i", 2, 3));
        assert_eq!(group_of("##ity", 2, 3), group_of("##ing", 2, 3));
        assert!((2..5).contains(&group_of("##s", 2, 3)) && (2..5).contains(&group_of("##é", 2, 3)));
        assert!(encode_groups(&["a", "a"], &[], 1, 1).is_err(), "tokens must be distinct");
        assert!(VocabGroup::decode(g[0].clone(), 1, 0).is_err(), "rows in range");
        assert!(VocabGroup::decode(g[1].clone(), tokens.len(), 2).is_err(), "another group's payload");

        let rows = [0.7, -0.35, 0.0, 1.4, 0.2, -1.4];
        let enc = EncoderRows::encode(&rows, 3, 5);
        let dec = EncoderRows::decode(&enc, 3, 2, 5).unwrap();
        for (a, b) in rows.iter().zip(&dec.rows) {
            assert!((a - b).abs() <= 1.4 / 7.0 * 0.51 + 1e-6, "{a} vs {b}");
        }
        assert!(EncoderRows::decode(&enc, 3, 3, 5).is_err());
        assert!(EncoderRows::decode(&enc, 4, 2, 5).is_err());
        assert!(EncoderRows::decode(&enc, 3, 2, 4).is_err(), "another row shard's payload");

        let layout = EncoderLayout {
            dim: 3,
            rows_per_shard: 64,
            n_rows: 70,
            n_word_groups: 2,
            n_continuation_groups: 3,
            group_files: "g-0123456789abcdef".into(),
            row_files: "e-0123456789abcdef".into(),
        };
        let ix = layout.index().unwrap();
        assert_eq!((ix.groups.len(), ix.row_shards.len()), (5, 2));
        assert_eq!((ix.group_of("##ity"), ix.group_of("the")), (group_of("##ity", 2, 3), word_group("the", 2)));
        assert_eq!(ix.continuation_group_of("ity"), ix.group_of("##ity"));
        assert_eq!(ix.row_shards[1].file, "e-0123456789abcdef-1.bin");
        assert!(ix.row_shards.iter().all(|r| r.check.is_none()));
        assert_eq!((ix.locate(65), ix.rows_in(1)), ((1, 1), 6));
        for bad in [
            EncoderLayout { dim: 0, ..layout.clone() },
            EncoderLayout { n_word_groups: 0, ..layout.clone() },
            EncoderLayout { n_continuation_groups: 0, ..layout.clone() },
            EncoderLayout { n_continuation_groups: MAX_GROUPS, ..layout.clone() },
            EncoderLayout { rows_per_shard: 0, ..layout.clone() },
        ] {
            assert!(bad.index().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_whole_word_is_found_in_its_group_with_its_pieces_and_never_as_a_piece() {
        let tokens = ["cache", "ca", "##ity", "##ching", "##s", "cap"];
        let words = vec![("caching".to_string(), vec![1, 3]), ("capacity".to_string(), vec![5, 1, 2])];
        let g = encode_groups(&tokens, &words, 2, 3).unwrap();
        let groups: Vec<VocabGroup> = g.iter().enumerate().map(|(i, p)| VocabGroup::decode(p.clone(), tokens.len(), i).unwrap()).collect();
        let mut out = vec![9];
        assert!(groups[word_group("caching", 2)].whole_word("caching", &mut out));
        assert!(groups[word_group("capacity", 2)].whole_word("capacity", &mut out));
        assert_eq!(out, [9, 1, 3, 5, 1, 2]);
        // Not a token: cutting a word never matches a whole word as its first piece.
        assert_eq!(groups[word_group("caching", 2)].row("caching"), None);
        assert!(!groups[word_group("cache", 2)].whole_word("cache", &mut out), "a token is not a whole word");
        assert_eq!(groups[word_group("cache", 2)].row("cache"), Some(0));
        assert_eq!(out.len(), 6, "nothing appended on a miss");

        for bad in [vec![1], vec![0, 1, 2, 3], vec![0, 6]] {
            assert!(encode_groups(&tokens, &[("capacity".into(), bad.clone())], 2, 3).is_err(), "{bad:?}");
        }
        assert!(encode_groups(&tokens, &[("##ity".into(), vec![1, 2])], 2, 3).is_err(), "a continuation is not a word");
        // Rows out of range are refused when read.
        assert!(VocabGroup::decode(g[word_group("capacity", 2)].clone(), 5, word_group("capacity", 2)).is_err());
        let mut rows = Vec::new();
        assert!(!unpack_pieces(pack_pieces(&[1, 2]).unwrap() << PIECE_BITS, 6, &mut rows), "an empty first piece");
        assert!(!unpack_pieces(1, 6, &mut rows), "one piece");
        assert!(rows.is_empty());
    }
}
