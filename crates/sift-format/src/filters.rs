//! The filter index: per filterable metadata field, value → the set of documents with it.
//! Filtering and facet counting intersect these sets with the candidates; no document is
//! scanned.
//!
//! Payload (no JSON):
//!
//! ```text
//! varint n_fields
//! n_fields × { str name, varint n_values,
//!              n_values × { str value, doc-id list (`varint::put_doc_list`) } }
//! ```

use sift_base::error::SiftError;
use sift_base::varint::{self, Reader};
use std::collections::BTreeMap;

/// Filterable field → value → sorted doc ids.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FilterIndex {
    pub fields: BTreeMap<String, BTreeMap<String, Vec<u32>>>,
}

impl FilterIndex {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        varint::put(&mut out, self.fields.len() as u64);
        for (field, values) in &self.fields {
            varint::put_str(&mut out, field);
            varint::put(&mut out, values.len() as u64);
            for (v, ids) in values {
                varint::put_str(&mut out, v);
                varint::put_doc_list(&mut out, ids);
            }
        }
        out
    }

    pub fn decode(payload: &[u8], doc_count: u32) -> Result<FilterIndex, SiftError> {
        let mut r = Reader::new(payload);
        let nf = r.u32()?;
        let mut fields = BTreeMap::new();
        for _ in 0..nf {
            let name = r.str()?.to_string();
            let nv = r.u32()?;
            let mut values = BTreeMap::new();
            for _ in 0..nv {
                let v = r.str()?.to_string();
                values.insert(v, r.doc_list(doc_count)?);
            }
            fields.insert(name, values);
        }
        Ok(FilterIndex { fields })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_out_of_range_ids_refused() {
        let mut f = FilterIndex::default();
        f.fields.entry("type".into()).or_default().insert("guide".into(), vec![0, 2]);
        f.fields.entry("type".into()).or_default().insert("blog".into(), vec![1]);
        let b = f.encode();
        assert_eq!(FilterIndex::decode(&b, 3).unwrap(), f);
        assert!(FilterIndex::decode(&b, 2).is_err());
    }
}
