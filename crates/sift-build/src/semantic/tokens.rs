//! The token ids of many texts, end to end in one array: a big site's chunks are most of a
//! hybrid build's memory from the embedding to the layout, and one small `Vec` a chunk
//! costs its header and its allocation's slack besides its ids.
//!
//! Ids take two bytes while every id pushed is below 65,536 (all-MiniLM-L6-v2's vocabulary
//! has 30,522 tokens), four from the first one that is not: half the memory for the
//! model the design names, any vocabulary still held.

use std::borrow::Cow;

#[derive(Debug, Clone)]
enum Ids {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

/// Texts' token ids, text `i` at `get(i)`.
#[derive(Debug, Clone)]
pub struct TokenRuns {
    ids: Ids,
    /// Where each text's ids end.
    ends: Vec<usize>,
}

impl Default for TokenRuns {
    fn default() -> Self {
        TokenRuns { ids: Ids::Narrow(Vec::new()), ends: Vec::new() }
    }
}

impl TokenRuns {
    pub fn push(&mut self, text: &[u32]) {
        if let Ids::Narrow(narrow) = &mut self.ids {
            if text.iter().all(|&t| t <= u32::from(u16::MAX)) {
                narrow.extend(text.iter().map(|&t| t as u16));
            } else {
                self.ids = Ids::Wide(narrow.iter().map(|&t| u32::from(t)).collect());
            }
        }
        if let Ids::Wide(wide) = &mut self.ids {
            wide.extend_from_slice(text);
        }
        self.ends.push(self.ids_len());
    }

    fn ids_len(&self) -> usize {
        match &self.ids {
            Ids::Narrow(v) => v.len(),
            Ids::Wide(v) => v.len(),
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Text `i`'s ids (a copy while they are held in two bytes).
    pub fn get(&self, i: usize) -> Cow<'_, [u32]> {
        let range = if i == 0 { 0 } else { self.ends[i - 1] }..self.ends[i];
        match &self.ids {
            Ids::Narrow(v) => Cow::Owned(v[range].iter().map(|&t| u32::from(t)).collect()),
            Ids::Wide(v) => Cow::Borrowed(&v[range]),
        }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = Cow<'_, [u32]>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Every id of every text, in order.
    pub fn all_ids(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match &self.ids {
            Ids::Narrow(v) => Box::new(v.iter().map(|&t| u32::from(t))),
            Ids::Wide(v) => Box::new(v.iter().copied()),
        }
    }

    /// Shed the spare capacity of growing (the arrays are read from then on).
    pub fn shrink_to_fit(&mut self) {
        match &mut self.ids {
            Ids::Narrow(v) => v.shrink_to_fit(),
            Ids::Wide(v) => v.shrink_to_fit(),
        }
        self.ends.shrink_to_fit();
    }
}

impl<T: AsRef<[u32]>> FromIterator<T> for TokenRuns {
    fn from_iter<I: IntoIterator<Item = T>>(texts: I) -> Self {
        let mut runs = TokenRuns::default();
        for t in texts {
            runs.push(t.as_ref());
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_come_back_as_pushed_in_two_bytes_or_four() {
        let texts: Vec<Vec<u32>> = vec![vec![101, 2000, 102], vec![], vec![65_535, 7]];
        let runs: TokenRuns = texts.iter().collect();
        assert!(matches!(runs.ids, Ids::Narrow(_)));
        assert_eq!(runs.iter().map(|t| t.into_owned()).collect::<Vec<_>>(), texts);
        // An id past two bytes widens what was held before it, and everything after.
        let mut wide = runs.clone();
        wide.push(&[70_000, 3]);
        wide.push(&[9]);
        assert!(matches!(wide.ids, Ids::Wide(_)));
        let mut want = texts.clone();
        want.extend([vec![70_000, 3], vec![9]]);
        assert_eq!(wide.iter().map(|t| t.into_owned()).collect::<Vec<_>>(), want);
        assert_eq!(wide.all_ids().collect::<Vec<_>>(), want.concat());
        assert_eq!((wide.len(), TokenRuns::default().is_empty()), (5, true));
    }
}
