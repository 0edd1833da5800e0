//! The pages a build reads: what each page is (id, url, title, metadata, …) held in memory,
//! packed, and its sections — the site's text, nearly all of its bytes — on disk.
//!
//! A host hands pages over one at a time ([`Pages::push`]) as it reads them, so a big site
//! is never held as text: each page's sections go to an anonymous temporary file at once,
//! and the build reads them back a batch or a shard at a time, in order, for each pass
//! that needs the text (analysis, the doc store's plan and its shards).
//!
//! A page's record is `varint sections`, then per section `heading | anchor? | text |
//! symbol?` (strings length-prefixed, `?` a 0/1 byte before the string, a symbol its path
//! then its kind). It is written and read by the same build, so it carries no header.
//!
//! A page's head is packed the same way, in memory: `id | url | title | path | date? |
//! link density (its f32 bits, varint) | varint fields, each: name, varint values, each value
//! | body (0: not said, 1: no, 2: yes) | varint filters, each | varint weighted stretches,
//! each: section, start, end, weight bits | varint sorts, each`. Unpacked, a head is a
//! `SourceDoc` of a dozen allocations (a metadata map alone takes half a kilobyte): a
//! million pages' heads would take more memory than the rest of the build.

use sift_base::doc::{Annotations, Section, SourceDoc, Symbol, Weighted};
use sift_base::error::SiftError;
use sift_base::varint::{self, Reader};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::sync::Mutex;

fn io_error(what: &str, e: std::io::Error) -> SiftError {
    SiftError::internal(format!("{what} the pages' text on disk: {e}"))
}

/// The pages of a build, in order; their sections on disk.
pub struct Pages {
    /// Each page without its sections, packed one after another.
    heads: Vec<u8>,
    /// Where each page's head starts in `heads`.
    head_starts: Vec<usize>,
    /// Where each page's sections start in the file, and end (the last: `len`).
    starts: Vec<u64>,
    /// Bytes of section text and headings of each page (what the doc store plans by).
    text_bytes: Vec<usize>,
    writer: Option<BufWriter<File>>,
    len: u64,
    /// The file read back (the writer's, once flushed).
    reader: Mutex<Option<File>>,
}

impl Pages {
    pub fn new() -> Result<Pages, SiftError> {
        let file = tempfile::tempfile().map_err(|e| io_error("cannot create", e))?;
        Ok(Pages {
            heads: Vec::new(),
            head_starts: Vec::new(),
            starts: Vec::new(),
            text_bytes: Vec::new(),
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
            len: 0,
            reader: Mutex::new(None),
        })
    }

    /// Pages held already (tests, small hosts), finished: none can be added.
    pub fn of(docs: impl IntoIterator<Item = SourceDoc>) -> Result<Pages, SiftError> {
        let mut pages = Pages::new()?;
        for d in docs {
            pages.push(d)?;
        }
        pages.finish()?;
        Ok(pages)
    }

    /// The next page: its sections go to disk, the rest stays.
    pub fn push(&mut self, mut doc: SourceDoc) -> Result<(), SiftError> {
        let w = self.writer.as_mut().ok_or_else(|| SiftError::internal("a page added after the build began reading"))?;
        let mut record = Vec::new();
        varint::put(&mut record, doc.sections.len() as u64);
        for s in &doc.sections {
            varint::put_str(&mut record, &s.heading);
            put_optional(&mut record, s.anchor.as_deref());
            varint::put_str(&mut record, &s.text);
            put_optional(&mut record, s.symbol.as_ref().map(|s| s.path.as_str()));
            if let Some(sym) = &s.symbol {
                varint::put_str(&mut record, &sym.kind);
            }
        }
        w.write_all(&record).map_err(|e| io_error("cannot write", e))?;
        self.starts.push(self.len);
        self.len += record.len() as u64;
        self.text_bytes.push(doc.sections.iter().map(|s| s.text.len() + s.heading.len()).sum());
        doc.sections = Vec::new();
        self.head_starts.push(self.heads.len());
        put_head(&mut self.heads, &doc);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.head_starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.head_starts.is_empty()
    }

    /// Page `i`'s id, read in place (it comes first in the head).
    pub fn id(&self, i: usize) -> &str {
        Reader::at(&self.heads, self.head_starts[i]).str().expect("a head packed by `push` reads back")
    }

    /// Page `i` without its sections (its id, metadata, dates: what needs no text).
    pub fn head(&self, i: usize) -> SourceDoc {
        let mut r = Reader::at(&self.heads, self.head_starts[i]);
        read_head(&mut r).expect("a head packed by `push` reads back")
    }

    /// Every page without its sections, in order.
    pub fn heads(&self) -> impl ExactSizeIterator<Item = SourceDoc> + '_ {
        (0..self.len()).map(|i| self.head(i))
    }

    /// Bytes of text and headings of page `i`.
    pub fn text_bytes(&self, i: usize) -> usize {
        self.text_bytes[i]
    }

    /// Pages `range`, whole, read back in one go.
    pub fn read(&self, range: Range<usize>) -> Result<Vec<SourceDoc>, SiftError> {
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let from = self.starts[range.start];
        let to = self.starts.get(range.end).copied().unwrap_or(self.len);
        let mut bytes = vec![0; (to - from) as usize];
        {
            let mut file = self.reader.lock().map_err(|_| SiftError::internal("the pages' file was poisoned"))?;
            let f = file.as_mut().ok_or_else(|| SiftError::internal("the pages were read before they were finished"))?;
            f.seek(SeekFrom::Start(from)).and_then(|_| f.read_exact(&mut bytes)).map_err(|e| io_error("cannot read", e))?;
        }
        let mut r = Reader::new(&bytes);
        let corrupt = |_| SiftError::internal("the pages' text on disk is damaged");
        range
            .map(|i| {
                let n = r.u64().map_err(corrupt)? as usize;
                let mut sections = Vec::with_capacity(n.min(1 << 16));
                for _ in 0..n {
                    let heading = r.str().map_err(corrupt)?.to_string();
                    let anchor = read_optional(&mut r).map_err(corrupt)?;
                    let text = r.str().map_err(corrupt)?.to_string();
                    let symbol = match read_optional(&mut r).map_err(corrupt)? {
                        Some(path) => Some(Symbol { path, kind: r.str().map_err(corrupt)?.to_string() }),
                        None => None,
                    };
                    sections.push(Section { heading, anchor, text, symbol });
                }
                Ok(SourceDoc { sections, ..self.head(i) })
            })
            .collect()
    }

    /// Page `i`, whole.
    pub fn page(&self, i: usize) -> Result<SourceDoc, SiftError> {
        self.read(i..i + 1).map(|mut v| v.remove(0))
    }

    /// The pages whose head `keep` keeps, in order, as pages of their own.
    pub fn retain(self, keep: impl Fn(&SourceDoc) -> bool) -> Result<Pages, SiftError> {
        let dropped: Vec<bool> = self.heads().map(|d| !keep(&d)).collect();
        if !dropped.contains(&true) {
            return Ok(self);
        }
        self.split(|i| usize::from(dropped[i]), 2).map(|mut v| v.remove(0))
    }

    /// The pages in `groups` sets, page `i` into set `group_of(i)`, in order.
    pub fn split(mut self, group_of: impl Fn(usize) -> usize, groups: usize) -> Result<Vec<Pages>, SiftError> {
        self.finish()?;
        let mut out: Vec<Pages> = (0..groups).map(|_| Pages::new()).collect::<Result<_, _>>()?;
        const AT_A_TIME: usize = 256;
        for first in (0..self.len()).step_by(AT_A_TIME) {
            for (i, d) in (first..).zip(self.read(first..(first + AT_A_TIME).min(self.len()))?) {
                out.get_mut(group_of(i)).ok_or_else(|| SiftError::internal("a page put in a set that is not there"))?.push(d)?;
            }
        }
        Ok(out)
    }

    /// No more pages: what was written is flushed, to be read back.
    pub fn finish(&mut self) -> Result<(), SiftError> {
        if let Some(w) = self.writer.take() {
            let file = w.into_inner().map_err(|e| io_error("cannot write", e.into_error()))?;
            *self.reader.lock().map_err(|_| SiftError::internal("the pages' file was poisoned"))? = Some(file);
        }
        Ok(())
    }
}

/// Pages a pass reads a batch at a time, in order: a build's [`Pages`] from disk (a site's
/// text is never held at once), or pages already in memory.
pub trait PageBatches {
    fn each_batch(&self, f: &mut dyn FnMut(&[SourceDoc]) -> Result<(), SiftError>) -> Result<(), SiftError>;
}

impl PageBatches for [SourceDoc] {
    fn each_batch(&self, f: &mut dyn FnMut(&[SourceDoc]) -> Result<(), SiftError>) -> Result<(), SiftError> {
        f(self)
    }
}

/// Pages a batch holds: enough to keep every core busy on it.
const BATCH_PAGES: usize = 1024;

/// (The pages must be [`Pages::finish`]ed.)
impl PageBatches for Pages {
    fn each_batch(&self, f: &mut dyn FnMut(&[SourceDoc]) -> Result<(), SiftError>) -> Result<(), SiftError> {
        for first in (0..self.len()).step_by(BATCH_PAGES) {
            f(&self.read(first..(first + BATCH_PAGES).min(self.len()))?)?;
        }
        Ok(())
    }
}

/// A string that may be absent: a 0/1 byte, then the string.
fn put_optional(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => {
            out.push(1);
            varint::put_str(out, s);
        }
        None => out.push(0),
    }
}

fn read_optional(r: &mut Reader) -> Result<Option<String>, SiftError> {
    Ok(if r.byte()? == 1 { Some(r.str()?.to_string()) } else { None })
}

fn put_strs(out: &mut Vec<u8>, strs: &[String]) {
    varint::put(out, strs.len() as u64);
    for s in strs {
        varint::put_str(out, s);
    }
}

/// A page's head, packed (the module's doc says how).
fn put_head(out: &mut Vec<u8>, d: &SourceDoc) {
    for s in [&d.id, &d.url, &d.title, &d.path] {
        varint::put_str(out, s);
    }
    put_optional(out, d.date.as_deref());
    varint::put(out, u64::from(d.link_density.to_bits()));
    varint::put(out, d.metadata.len() as u64);
    for (field, values) in &d.metadata {
        varint::put_str(out, field);
        put_strs(out, values);
    }
    let a = &d.annotations;
    out.push(match a.body {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    });
    put_strs(out, &a.filters);
    varint::put(out, a.weighted.len() as u64);
    for w in &a.weighted {
        for n in [w.section, w.start, w.end] {
            varint::put(out, n as u64);
        }
        varint::put(out, u64::from(w.weight.to_bits()));
    }
    put_strs(out, &a.sorts);
}

fn read_strs(r: &mut Reader) -> Result<Vec<String>, SiftError> {
    let n = r.u64()? as usize;
    (0..n).map(|_| r.str().map(str::to_string)).collect()
}

/// A head `put_head` packed, unpacked.
fn read_head(r: &mut Reader) -> Result<SourceDoc, SiftError> {
    let id = r.str()?.to_string();
    let url = r.str()?.to_string();
    let title = r.str()?.to_string();
    let path = r.str()?.to_string();
    let date = read_optional(r)?;
    let link_density = f32::from_bits(r.u32()?);
    let fields = r.u64()? as usize;
    let metadata = (0..fields).map(|_| Ok((r.str()?.to_string(), read_strs(r)?))).collect::<Result<_, SiftError>>()?;
    let body = [None, Some(false), Some(true)].get(r.byte()? as usize).copied().flatten();
    let filters = read_strs(r)?;
    let stretches = r.u64()? as usize;
    let weighted = (0..stretches)
        .map(|_| {
            let [section, start, end] = [r.u64()?, r.u64()?, r.u64()?].map(|n| n as usize);
            Ok(Weighted { section, start, end, weight: f32::from_bits(r.u32()?) })
        })
        .collect::<Result<_, SiftError>>()?;
    let sorts = read_strs(r)?;
    Ok(SourceDoc {
        id,
        url,
        title,
        path,
        sections: Vec::new(),
        metadata,
        date,
        link_density,
        annotations: Annotations { body, filters, weighted, sorts },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn doc(i: usize) -> SourceDoc {
        SourceDoc {
            id: format!("p{i}.html"),
            title: format!("Page {i}"),
            metadata: BTreeMap::from([("type".to_string(), vec![format!("t{}", i % 3)])]),
            sections: (0..i % 4)
                .map(|s| Section {
                    heading: if s == 0 { String::new() } else { format!("Heading {s}") },
                    anchor: (s % 2 == 1).then(|| format!("h{s}")),
                    text: "wörds ".repeat(i * 10 + s),
                    symbol: (s == 2).then(|| Symbol { path: format!("m.f{i}"), kind: "function".into() }),
                })
                .collect(),
            link_density: 0.25,
            ..Default::default()
        }
    }

    #[test]
    fn pages_read_back_whole_in_any_range_with_their_heads_in_memory() {
        let docs: Vec<SourceDoc> = (0..50).map(doc).collect();
        let pages = Pages::of(docs.clone()).unwrap();
        assert_eq!(pages.len(), 50);
        assert!(pages.heads().all(|h| h.sections.is_empty()));
        assert_eq!(pages.head(7).id, "p7.html");
        assert_eq!(pages.id(7), "p7.html");
        assert_eq!(pages.read(0..50).unwrap(), docs);
        assert_eq!(pages.read(13..29).unwrap(), docs[13..29]);
        assert_eq!(pages.page(49).unwrap(), docs[49]);
        assert!(pages.read(5..5).unwrap().is_empty());
        assert_eq!(pages.text_bytes(3), docs[3].sections.iter().map(|s| s.text.len() + s.heading.len()).sum::<usize>());
    }

    #[test]
    fn a_head_with_every_field_set_reads_back_as_it_was_given() {
        let full = SourceDoc {
            id: "guide/ünïcode.html".into(),
            url: "/docs/guide/ünïcode.html".into(),
            title: "Ünïcode".into(),
            path: "guide ünïcode".into(),
            sections: Vec::new(),
            metadata: BTreeMap::from([("tags".into(), vec!["a".into(), "".into(), "c d".into()]), ("type".into(), vec![])]),
            date: Some("2026-11-28".into()),
            link_density: 0.3125,
            annotations: Annotations {
                body: Some(true),
                filters: vec!["tags".into()],
                weighted: vec![Weighted { section: 2, start: 300, end: 70_000, weight: 0.5 }],
                sorts: vec!["order".into()],
            },
        };
        let unset =
            SourceDoc { id: "x".into(), annotations: Annotations { body: Some(false), ..Default::default() }, ..Default::default() };
        let pages = Pages::of([full.clone(), unset.clone(), SourceDoc { id: "y".into(), ..Default::default() }]).unwrap();
        assert_eq!(pages.heads().collect::<Vec<_>>(), [full, unset, SourceDoc { id: "y".into(), ..Default::default() }]);
    }

    #[test]
    fn pages_split_and_kept_stay_in_order() {
        let docs: Vec<SourceDoc> = (0..600).map(doc).collect();
        let mut split = Pages::of(docs.clone()).unwrap().split(|i| usize::from(docs[i].metadata["type"][0] == "t1"), 2).unwrap();
        let ones: Vec<SourceDoc> = docs.iter().filter(|d| d.metadata["type"][0] == "t1").cloned().collect();
        let whole = |p: &mut Pages| {
            p.finish().unwrap();
            p.read(0..p.len()).unwrap()
        };
        assert_eq!(whole(&mut split[1]), ones);
        assert_eq!(split[0].len() + ones.len(), 600);
        let mut kept = Pages::of(docs.clone()).unwrap().retain(|d| d.id.ends_with("0.html")).unwrap();
        assert_eq!(whole(&mut kept), docs.iter().filter(|d| d.id.ends_with("0.html")).cloned().collect::<Vec<_>>());
    }

    #[test]
    fn reading_before_the_pages_are_finished_or_adding_after_is_an_error() {
        let mut pages = Pages::new().unwrap();
        pages.push(doc(1)).unwrap();
        assert!(pages.read(0..1).is_err());
        pages.finish().unwrap();
        assert!(pages.push(doc(2)).is_err());
    }
}
