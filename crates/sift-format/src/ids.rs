//! The id index: document id → doc number, so `get_document` and `related` read the one
//! doc-store shard that holds a page instead of scanning the store.
//!
//! Ids are sorted and cut into shards of about `ID_SHARD_KEYS` keys; the manifest gives each
//! shard's first and last id, so a lookup reads at most one id shard. Payload: an fst map
//! (id bytes → doc number), its own checksum verified at load.

use super::terms::{build_fst, open_fst};
use sift_base::error::SiftError;

/// Ids per id shard: about 40 kB of fst for path-like ids.
pub const ID_SHARD_KEYS: usize = 4096;

pub struct IdShard {
    map: fst::Map<Vec<u8>>,
}

impl IdShard {
    pub fn decode(payload: Vec<u8>, doc_count: u32) -> Result<IdShard, SiftError> {
        let map = open_fst(payload, "id index")?;
        // Every doc number in range, checked once here so lookups can trust them.
        let mut s = map.stream();
        while let Some((_, v)) = fst::Streamer::next(&mut s) {
            if v >= u64::from(doc_count) {
                return Err(SiftError::corrupt("id index names a document out of range"));
            }
        }
        Ok(IdShard { map })
    }

    pub fn get(&self, id: &str) -> Option<u32> {
        self.map.get(id.as_bytes()).map(|d| d as u32)
    }
}

/// Id shards for documents `ids[doc]`: (first id, last id, payload) per shard.
pub fn encode(ids: &[&str]) -> Result<Vec<(String, String, Vec<u8>)>, SiftError> {
    let mut sorted: Vec<(&str, u32)> = ids.iter().enumerate().map(|(d, id)| (*id, d as u32)).collect();
    sorted.sort_unstable();
    sorted
        .chunks(ID_SHARD_KEYS)
        .map(|c| {
            let payload = build_fst(c.iter().map(|(id, d)| (*id, u64::from(*d))))?;
            Ok((c[0].0.to_string(), c[c.len() - 1].0.to_string(), payload))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_map_to_their_doc_numbers_across_shards() {
        let ids: Vec<String> = (0..ID_SHARD_KEYS * 2 + 5).map(|i| format!("page-{:05}.html", (i * 7919) % 100_000)).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let shards = encode(&refs).unwrap();
        assert_eq!(shards.len(), 3);
        let opened: Vec<IdShard> = shards.iter().map(|s| IdShard::decode(s.2.clone(), ids.len() as u32).unwrap()).collect();
        for (d, id) in ids.iter().enumerate() {
            let i = shards.partition_point(|s| s.0.as_str() <= id.as_str()) - 1;
            assert_eq!(opened[i].get(id), Some(d as u32), "{id}");
        }
        assert_eq!(opened[0].get("nope"), None);
        assert!(IdShard::decode(shards[0].2.clone(), 10).is_err(), "doc numbers beyond the count are refused");
    }
}
