//! The startup shard (kind 15, `s-<hash>.bin`): what every search reads in its
//! first round whatever the query — the doc metadata, the filter index and the doc store's
//! dictionary — as one file.
//!
//! Payload: three sections in this order, each `varint length` then its bytes:
//!
//! ```text
//! docmeta     the payload of [`super::docmeta`]
//! filters     the payload of [`super::filters`]
//! dictionary  the doc store's dictionary ([`super::dictionary`]); empty when the store has none
//! ```
//!
//! Why one file: the three are always fetched together, and on a mobile link a request
//! costs more than its bytes (HTTP/1.1 browsers open six connections a host); one deflate
//! stream over the three also shares their compression context.

use sift_base::error::SiftError;
use sift_base::varint::{self, Reader};

/// The startup shard's three sections, borrowed from its payload.
#[derive(Debug, PartialEq, Eq)]
pub struct Sections<'a> {
    pub docmeta: &'a [u8],
    pub filters: &'a [u8],
    /// None when the doc store has no dictionary.
    pub dictionary: Option<&'a [u8]>,
}

pub fn encode(docmeta: &[u8], filters: &[u8], dictionary: Option<&[u8]>) -> Vec<u8> {
    let dictionary = dictionary.unwrap_or(&[]);
    let mut out = Vec::with_capacity(docmeta.len() + filters.len() + dictionary.len() + 12);
    for section in [docmeta, filters, dictionary] {
        varint::put(&mut out, section.len() as u64);
        out.extend_from_slice(section);
    }
    out
}

/// Split a startup payload into its sections: exactly three, nothing after them.
pub fn decode(payload: &[u8]) -> Result<Sections<'_>, SiftError> {
    let mut r = Reader::new(payload);
    let mut sections: [&[u8]; 3] = [&[]; 3];
    for s in &mut sections {
        let n = usize::try_from(r.u64()?).map_err(|_| SiftError::corrupt("startup shard section too long"))?;
        *s = r.bytes(n)?;
    }
    let [docmeta, filters, dictionary] = sections;
    if !r.is_empty() {
        return Err(SiftError::corrupt("startup shard has bytes after its three sections"));
    }
    Ok(Sections { docmeta, filters, dictionary: (!dictionary.is_empty()).then_some(dictionary) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_round_trip_with_and_without_a_dictionary() {
        let with = encode(b"meta", b"filters", Some(b"dictionary"));
        assert_eq!(decode(&with).unwrap(), Sections { docmeta: b"meta", filters: b"filters", dictionary: Some(b"dictionary") });
        let without = encode(b"meta", b"", None);
        assert_eq!(decode(&without).unwrap(), Sections { docmeta: b"meta", filters: b"", dictionary: None });
    }

    #[test]
    fn truncated_or_padded_payloads_are_refused() {
        let b = encode(b"meta", b"filters", Some(b"dictionary"));
        for cut in 0..b.len() {
            assert_eq!(decode(&b[..cut]).unwrap_err().code, "bundle_corrupt", "cut at {cut}");
        }
        let mut padded = b.clone();
        padded.push(0);
        assert_eq!(decode(&padded).unwrap_err().code, "bundle_corrupt");
        // A length past the end, and one that overflows.
        assert!(decode(&[0xff, 0xff, 0xff, 0xff, 0x0f]).is_err());
        assert!(decode(&[0xff; 11]).is_err());
    }
}
