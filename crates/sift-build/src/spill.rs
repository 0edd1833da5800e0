//! Runs of postings on disk: how a site's postings are built in bounded memory.
//!
//! While pages are inverted, each term's postings are held as rows
//! (`bundle::terms::TermEntry`); once the rows held pass a budget, every term's rows are
//! taken out and written to an anonymous temporary file, terms in sorted order — a run.
//! The term shards are written in sorted order too, so each run is read once, front to
//! back, handing each term its rows from every run in turn. The terms themselves, their
//! document frequencies and spellings stay in memory (the vocabulary needs them).
//!
//! A run is a sequence of records `varint len | term | varint docs | varint len | rows`.
//! It is written and read by the same build, so it carries no header or version.

use sift_base::error::SiftError;
use sift_format::terms::{HeldRun, TermEntry};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, Write};

fn io_error(what: &str, e: std::io::Error) -> SiftError {
    SiftError::internal(format!("{what} a run of postings on disk: {e}"))
}

/// Take every term's rows out of `postings` and write them as a run, terms in sorted order.
pub(crate) fn write_run(postings: &mut HashMap<String, TermEntry>) -> Result<File, SiftError> {
    let mut terms: Vec<(&String, &mut TermEntry)> = postings.iter_mut().filter(|(_, e)| e.held_bytes() > 0).collect();
    terms.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let file = tempfile::tempfile().map_err(|e| io_error("cannot create", e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut head = Vec::new();
    for (term, entry) in terms {
        let (docs, rows) = entry.take_run();
        head.clear();
        sift_base::varint::put_str(&mut head, term);
        sift_base::varint::put(&mut head, u64::from(docs));
        sift_base::varint::put(&mut head, rows.len() as u64);
        w.write_all(&head).and_then(|()| w.write_all(&rows)).map_err(|e| io_error("cannot write", e))?;
    }
    let mut file = w.into_inner().map_err(|e| io_error("cannot write", e.into_error()))?;
    file.rewind().map_err(|e| io_error("cannot read", e))?;
    Ok(file)
}

/// A run read front to back, one term ahead.
pub(crate) struct RunReader {
    input: BufReader<File>,
    next: Option<(String, HeldRun)>,
}

impl RunReader {
    pub(crate) fn new(file: File) -> Result<Self, SiftError> {
        let mut r = RunReader { input: BufReader::with_capacity(1 << 16, file), next: None };
        r.advance()?;
        Ok(r)
    }

    /// The rows this run holds for `term`, when it is the run's next term. Terms must be
    /// asked for in sorted order.
    pub(crate) fn take(&mut self, term: &str) -> Result<Option<HeldRun>, SiftError> {
        match &self.next {
            Some((t, _)) if t == term => {
                let held = self.next.take().map(|(_, h)| h);
                self.advance()?;
                Ok(held)
            }
            Some((t, _)) if t.as_str() < term => Err(SiftError::internal(format!("a run of postings holds {t:?}, which no term list has"))),
            _ => Ok(None),
        }
    }

    /// Whether every record was taken.
    pub(crate) fn is_done(&self) -> bool {
        self.next.is_none()
    }

    fn advance(&mut self) -> Result<(), SiftError> {
        if self.input.fill_buf().map_err(|e| io_error("cannot read", e))?.is_empty() {
            self.next = None;
            return Ok(());
        }
        let term_len = self.varint()? as usize;
        let term = String::from_utf8(self.bytes(term_len)?)
            .map_err(|_| SiftError::internal("a run of postings holds a term that is not UTF-8"))?;
        let docs = u32::try_from(self.varint()?).map_err(|_| SiftError::internal("a run of postings is damaged"))?;
        let len = self.varint()? as usize;
        let rows = self.bytes(len)?;
        self.next = Some((term, (docs, rows)));
        Ok(())
    }

    fn bytes(&mut self, n: usize) -> Result<Vec<u8>, SiftError> {
        let mut b = vec![0; n];
        self.input.read_exact(&mut b).map_err(|e| io_error("cannot read", e))?;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, SiftError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let mut b = [0u8];
            self.input.read_exact(&mut b).map_err(|e| io_error("cannot read", e))?;
            v |= u64::from(b[0] & 0x7f) << shift;
            if b[0] & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(SiftError::internal("a run of postings is damaged"))
    }
}
